package dev.zklock.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.EnableDistributedLocks;
import dev.zklock.aop.DistributedLockAdvisor;
import dev.zklock.autoconfigure.diagnostics.ZkLockFailureAnalyzers;
import dev.zklock.autoconfigure.diagnostics.ZooKeeperUnreachableException;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LostLockPolicy;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThatThrownBy;

/**
 * Tests for {@link ZkLockAutoConfiguration}, against a real in-process ZooKeeper.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class ZkLockAutoConfigurationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s");
	}

	@Test
	void createsConnectedClientRegistryAndAdvisor() {
		runner().run((context) -> {
			assertThat(context).hasSingleBean(CuratorFramework.class)
				.hasSingleBean(ZkLockRegistry.class)
				.hasSingleBean(DistributedLockAdvisor.class)
				.hasSingleBean(ZkLockConnectionDetails.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
			assertThat(client.getZookeeperClient().isConnected()).isTrue();
			assertThat(client.getZookeeperClient().getCurrentConnectionString()).isEqualTo(this.zk.connectString());
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("k");
			assertThat(lock.path()).isEqualTo("/locks/k");
			lock.lock();
			lock.unlock();
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(Integer.MAX_VALUE - 1);
		});
	}

	@Test
	void propertyDefaultsAreTheEngineDefaults() {
		runner().run((context) -> assertThat(context.getBean(ZkLockRegistry.class).getOptions())
			.isEqualTo(dev.zklock.core.ZkLockOptions.defaults()));
	}

	@Test
	void lockAndClientPropertiesAreApplied() {
		runner().withPropertyValues("zklock.namespace=shop", "zklock.lock.root-path=/app/locks",
				"zklock.lock.default-wait=3s", "zklock.lock.max-local-handoffs=2", "zklock.lock.lost-lock-policy=warn",
				"zklock.lock.release-timeout=1s", "zklock.lock.linger=250ms", "zklock.annotation.order=42")
			.run((context) -> {
				ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
				assertThat(registry.getOptions().rootPath()).isEqualTo("/app/locks");
				assertThat(registry.getOptions().defaultWait()).isEqualTo(Duration.ofSeconds(3));
				assertThat(registry.getOptions().maxLocalHandoffs()).isEqualTo(2);
				assertThat(registry.getOptions().lostLockPolicy()).isEqualTo(LostLockPolicy.WARN);
				assertThat(registry.getOptions().releaseTimeout()).isEqualTo(Duration.ofSeconds(1));
				assertThat(registry.getOptions().linger()).isEqualTo(Duration.ofMillis(250));
				assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(42);
				assertThat(context.getBean(CuratorFramework.class).getNamespace()).isEqualTo("shop");
				ZkLock lock = registry.obtain("k");
				lock.lock();
				try {
					eventually().untilAsserted(() -> assertThat(this.zk.children("/shop/app/locks/k")).hasSize(1));
				}
				finally {
					lock.unlock();
				}
			});
	}

	@Test
	void backsOffFromApplicationCuratorFramework() throws Exception {
		CuratorFramework own = this.zk.newClient();
		runner().withBean("myCurator", CuratorFramework.class, () -> own).run((context) -> {
			assertThat(context).hasSingleBean(CuratorFramework.class).doesNotHaveBean("zkLockCuratorFramework");
			assertThat(context.getBean(ZkLockRegistry.class).getClient()).isSameAs(own);
		});
	}

	@Test
	void startsAnApplicationCuratorFrameworkThatNobodyStarted() {
		runner()
			.withBean("myCurator", CuratorFramework.class,
					() -> org.apache.curator.framework.CuratorFrameworkFactory.newClient(this.zk.connectString(),
							new org.apache.curator.retry.RetryOneTime(100)),
					(definition) -> definition.setDestroyMethodName("close"))
			.run((context) -> assertThat(context.getBean(CuratorFramework.class).getState())
				.isEqualTo(CuratorFrameworkState.STARTED));
	}

	@Test
	void backsOffFromApplicationRegistryAndAdvisor() {
		runner().withUserConfiguration(OwnRegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ZkLockRegistry.class).hasBean("ownRegistry");
			assertThat(context.getBean(ZkLockRegistry.class).getOptions().rootPath()).isEqualTo("/own");
			// The application enabled @DistributedLock itself: the auto-configured
			// advisor backs off
			assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
			DistributedLockAdvisor advisor = context.getBean(DistributedLockAdvisor.class);
			assertThat(advisor.getOrder()).isEqualTo(OwnRegistryConfiguration.ADVISOR_ORDER);
			// The application's advisor is the one, and the only one, that locked methods
			// get
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(greeter).isInstanceOf(Advised.class);
			assertThat(((Advised) greeter).getAdvisors()).containsExactly(advisor);
			assertThat(greeter.greet()).isEqualTo("held");
		});
	}

	@Test
	void usesConnectionDetailsBeanOverProperties() {
		runner().withPropertyValues("zklock.connect-string=nowhere.invalid:1")
			.withBean(ZkLockConnectionDetails.class, () -> this.zk::connectString)
			.run((context) -> {
				assertThat(context).hasSingleBean(ZkLockConnectionDetails.class)
					.doesNotHaveBean(PropertiesZkLockConnectionDetails.class);
				assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().isConnected()).isTrue();
			});
	}

	@Test
	void customizersRunInOrder() {
		runner().withUserConfiguration(CustomizerConfiguration.class).run((context) -> {
			assertThat(context.getBean(CustomizerConfiguration.class).calls).containsExactly("first", "second");
			assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().getConnectionTimeoutMs())
				.isEqualTo(1234);
		});
	}

	@Test
	void disabledTurnsEverythingOff() {
		runner().withPropertyValues("zklock.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(CuratorFramework.class)
				.doesNotHaveBean(ZkLockRegistry.class)
				.doesNotHaveBean(DistributedLockAdvisor.class)
				.doesNotHaveBean(ZkLockProperties.class);
		});
	}

	@Test
	void absentZooKeeperDoesNotHangStartupAndWarnsOnce(CapturedOutput output) throws Exception {
		this.zk.server().stop();
		long start = System.nanoTime();
		// A connection timeout beyond the bound below, so that startup waiting for it
		// would fail it
		runner().withPropertyValues("zklock.initial-connect-wait=500ms", "zklock.connection-timeout=60s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ZkLockRegistry.class);
				// Catches startup waiting for the server rather than
				// initial-connect-wait; wide for loaded CI
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
				assertThat(output).containsOnlyOnce("ZooKeeper at '" + this.zk.connectString()
						+ "' could not be reached within 500 ms; starting anyway");
			});
	}

	@Test
	void failFastFailsStartupNamingConnectString() throws Exception {
		this.zk.server().stop();
		runner().withPropertyValues("zklock.initial-connect-wait=300ms", "zklock.fail-fast=true").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = ZkLockFailureAnalyzers.zooKeeperUnreachable()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getCause()).isInstanceOf(ZooKeeperUnreachableException.class)
				.hasMessage("ZooKeeper at '" + this.zk.connectString()
						+ "' could not be reached within 300 ms (zklock.initial-connect-wait), and zklock.fail-fast is true");
		});
	}

	@Test
	void unresolvedHostsReadsEveryFormOfTheConnectString() {
		assumeThatThrownBy(() -> InetAddress.getByName("a.invalid")).isInstanceOf(UnknownHostException.class);
		assertThat(ZkLockAutoConfiguration.unresolvedHosts("127.0.0.1:2181, [::1]:2181,localhost/a/b")).isEmpty();
		assertThat(ZkLockAutoConfiguration.unresolvedHosts("a.invalid:1,127.0.0.1,a.invalid:2,b.invalid/c"))
			.containsExactly("a.invalid", "b.invalid");
	}

	@Test
	void invalidPropertiesFailStartupNamingTheProperty() {
		assertInvalid("zklock.session-timeout=-1s", "zklock.session-timeout");
		assertInvalid("zklock.lock.default-wait=-5s", "zklock.lock.default-wait");
		assertInvalid("zklock.lock.max-local-handoffs=-1", "zklock.lock.max-local-handoffs");
		assertInvalid("zklock.lock.linger=-1s", "zklock.lock.linger");
		assertInvalid("zklock.lock.linger=2h", "zklock.lock.linger");
		assertInvalid("zklock.lock.root-path=locks", "zklock.lock.root-path");
		assertInvalid("zklock.retry.max-retries=-2", "zklock.retry.max-retries");
		assertInvalid("zklock.connect-string=localhost:2181,:99", "zklock.connect-string");
		assertInvalid("zklock.connect-string=host:99999", "zklock.connect-string");
		assertInvalid("zklock.connect-string=a b:2181", "zklock.connect-string");
		assertInvalid("zklock.namespace=/shop", "zklock.namespace");
		assertInvalid("zklock.embedded.port=70000", "zklock.embedded.port");
	}

	private void assertInvalid(String property, String name) {
		runner().withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property " + name + " with value");
		});
	}

	@Test
	void digestAuthCreatesLockNodesOthersCannotDelete() {
		runner().withPropertyValues("zklock.auth.username=shop", "zklock.auth.password=s3cret").run((context) -> {
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("guarded");
			lock.lock();
			try {
				CuratorFramework owner = context.getBean(CuratorFramework.class);
				String node = owner.getChildren().forPath("/locks/guarded").get(0);
				assertThat(owner.getACL().forPath("/locks/guarded/" + node)).singleElement().satisfies((acl) -> {
					assertThat(acl.getId().getScheme()).isEqualTo("digest");
					assertThat(acl.getId().getId()).startsWith("shop:");
					assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.ALL);
				});
				CuratorFramework stranger = this.zk.newClient();
				assertThatExceptionOfType(KeeperException.NoAuthException.class)
					.isThrownBy(() -> stranger.delete().forPath("/locks/guarded/" + node));
				assertThatExceptionOfType(KeeperException.NoAuthException.class)
					.isThrownBy(() -> stranger.getChildren().forPath("/locks/guarded"));
				assertThatExceptionOfType(KeeperException.NoAuthException.class)
					.isThrownBy(() -> stranger.create().forPath("/locks/guarded/_c_x-lock-"));
				assertThat(lock.leaseState()).isEqualTo(dev.zklock.core.LeaseState.HELD);
				assertThat(owner.getChildren().forPath("/locks/guarded")).containsExactly(node);
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(order = OwnRegistryConfiguration.ADVISOR_ORDER)
	static class OwnRegistryConfiguration {

		/**
		 * Unlike the auto-configured default, so the test can tell the advisors apart.
		 */
		static final int ADVISOR_ORDER = 7;

		@Bean
		ZkLockRegistry ownRegistry(CuratorFramework client) {
			return new ZkLockRegistry(client, dev.zklock.core.ZkLockOptions.defaults().withRootPath("/own"));
		}

		@Bean
		Greeter greeter(ZkLockRegistry registry) {
			return new Greeter(registry);
		}

	}

	public static class Greeter {

		private final ZkLockRegistry registry;

		public Greeter(ZkLockRegistry registry) {
			this.registry = registry;
		}

		@DistributedLock(key = "'greeting'")
		public String greet() {
			return this.registry.obtain("greeting").isHeldByCurrentThread() ? "held" : "not held";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomizerConfiguration {

		final List<String> calls = new ArrayList<>();

		@Bean
		@Order(2)
		CuratorFrameworkBuilderCustomizer second() {
			return (builder) -> {
				this.calls.add("second");
				builder.connectionTimeoutMs(1234);
			};
		}

		@Bean
		@Order(1)
		CuratorFrameworkBuilderCustomizer first() {
			return (builder) -> {
				this.calls.add("first");
				builder.connectionTimeoutMs(1);
			};
		}

	}

}
