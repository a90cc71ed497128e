package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration;
import org.springframework.util.ClassUtils;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * zk-lock beside Spring Cloud Zookeeper's auto-configuration: one Curator client, Spring
 * Cloud's, configured by {@code spring.cloud.zookeeper.*}. Spring Cloud Zookeeper is on
 * the class path of this test's own Surefire run only (see the pom); elsewhere, as with
 * {@code -Dtest} naming it, the test is skipped.
 */
@Timeout(60)
@EnabledIf("springCloudZookeeperPresent")
class SpringCloudZookeeperTests {

	static boolean springCloudZookeeperPresent() {
		return ClassUtils.isPresent("org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration",
				SpringCloudZookeeperTests.class.getClassLoader());
	}

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		// zk-lock's own auto-configuration is listed first: only its ordering can put it
		// after
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZookeeperAutoConfiguration.class));
	}

	@Test
	void zkLockUsesSpringCloudZookeepersClient() {
		// No zklock.connect-string: a client of zk-lock's own would look for
		// localhost:2181
		runner().withPropertyValues("spring.cloud.zookeeper.connect-string=" + this.zk.connectString())
			.run((context) -> {
				assertThat(context).hasSingleBean(CuratorFramework.class)
					.hasBean("curatorFramework")
					.doesNotHaveBean("zkLockCuratorFramework");
				ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
				assertThat(registry.getClient()).isSameAs(context.getBean("curatorFramework"));
				ZkLock lock = registry.obtain("shared-client");
				lock.lock();
				try {
					eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/shared-client")).hasSize(1));
				}
				finally {
					lock.unlock();
				}
			});
	}

	@Test
	void zkLockBuildsItsOwnClientWhenSpringCloudZookeeperIsDisabled() {
		runner()
			.withPropertyValues("spring.cloud.zookeeper.enabled=false",
					"zklock.connect-string=" + this.zk.connectString())
			.run((context) -> {
				assertThat(context).hasSingleBean(CuratorFramework.class).hasBean("zkLockCuratorFramework");
				assertThat(context.getBean(ZkLockRegistry.class).getClient())
					.isSameAs(context.getBean("zkLockCuratorFramework"));
			});
	}

}
