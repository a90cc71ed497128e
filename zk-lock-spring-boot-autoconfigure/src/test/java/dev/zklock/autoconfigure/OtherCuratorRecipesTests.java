package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.template.LockContext;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured {@link CuratorFramework} is there for every Curator recipe, not
 * only the locks: a leader latch, a barrier and a double barrier run on the same client
 * as {@code @DistributedLock}, sharing its one connection and session, its namespace and
 * its digest authentication (creator-only ACLs on what they create).
 */
@Timeout(60)
class OtherCuratorRecipesTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void barriersAndLeaderLatchShareTheClientWithTheLocks() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, AopAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.namespace=shop",
					"zklock.auth.username=shop", "zklock.auth.password=s3cret")
			.withUserConfiguration(Config.class)
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(context.getBean(ZkLockRegistry.class).getClient()).isSameAs(client);
				long session = client.getZookeeperClient().getZooKeeper().getSessionId();
				try (LeaderLatch latch = new LeaderLatch(client, "/leader", "instance-1")) {
					latch.start();
					assertThat(latch.await(20, TimeUnit.SECONDS)).isTrue();
					// While it leads, a locked method runs on the same client, as does a
					// plain Curator mutex
					Worker worker = context.getBean(Worker.class);
					assertThat(worker.work("a")).isPositive();
					InterProcessMutex mutex = new InterProcessMutex(client, "/locks/shared:b");
					assertThat(mutex.acquire(5, TimeUnit.SECONDS)).isTrue();
					mutex.release();
					DistributedBarrier barrier = new DistributedBarrier(client, "/barrier");
					barrier.setBarrier();
					assertThat(barrier.waitOnBarrier(100, TimeUnit.MILLISECONDS)).isFalse();
					barrier.removeBarrier();
					assertThat(barrier.waitOnBarrier(5, TimeUnit.SECONDS)).isTrue();
					DistributedDoubleBarrier together = new DistributedDoubleBarrier(client, "/together", 1);
					assertThat(together.enter(5, TimeUnit.SECONDS)).isTrue();
					assertThat(together.leave(5, TimeUnit.SECONDS)).isTrue();
					// One session for all of it; everything under the namespace, guarded
					// by the credentials
					assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
					// Read without the namespace, and with the credentials: the nodes are
					// creator-only
					CuratorFramework raw = client.usingNamespace(null);
					assertThat(raw.getChildren().forPath("/shop")).contains("leader", "locks", "together");
					assertThat(raw.getChildren().forPath("/")).doesNotContain("leader", "locks", "barrier");
					String latchNode = raw.getChildren().forPath("/shop/leader").get(0);
					assertThat(raw.getData().forPath("/shop/leader/" + latchNode)).asString().isEqualTo("instance-1");
				}
				assertThat(context.getBean(ZkLockRegistry.class).size()).isZero();
			});
	}

	@Test
	void nodesOfOtherRecipesGetTheCreatorOnlyAcl() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.auth.username=shop",
					"zklock.auth.password=s3cret")
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				try (LeaderLatch latch = new LeaderLatch(client, "/elections/report")) {
					latch.start();
					assertThat(latch.await(20, TimeUnit.SECONDS)).isTrue();
					String node = client.getChildren().forPath("/elections/report").get(0);
					assertThat(client.getACL().forPath("/elections/report/" + node)).singleElement()
						.satisfies((acl) -> {
							assertThat(acl.getId().getScheme()).isEqualTo("digest");
							assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.ALL);
						});
				}
				eventually().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(client.getChildren().forPath("/elections/report")).isEmpty());
			});
	}

	public static class Worker {

		@DistributedLock(key = "'shared:' + #id")
		public long work(String id) {
			return LockContext.current().fencingToken();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Worker worker() {
			return new Worker();
		}

	}

}
