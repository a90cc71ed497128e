package dev.zklock.autoconfigure.integration;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.shedlock.ZkLockShedLockAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.integration.ZkLockIntegrationLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ZkLockIntegrationAutoConfiguration}, against a real in-process
 * ZooKeeper.
 */
@Timeout(60)
class ZkLockIntegrationAutoConfigurationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLockIntegrationAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s");
	}

	@Test
	void providesALockRegistryBackedByTheZkLockRegistry() {
		runner().run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class)
				.hasSingleBean(ZkLockIntegrationLockRegistry.class)
				.hasBean("zkLockIntegrationLockRegistry");
			ZkLockIntegrationLockRegistry locks = context.getBean(ZkLockIntegrationLockRegistry.class);
			assertThat(locks.getRegistry()).isSameAs(context.getBean(ZkLockRegistry.class));
			ZkLock lock = locks.obtain("orders");
			assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
			try {
				eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/orders")).hasSize(1));
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Test
	void aLeaderInitiatorDeclaredAgainstLockRegistryLeadsThroughZooKeeper() {
		runner().withUserConfiguration(LeaderConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			LockRegistryLeaderInitiator initiator = context.getBean(LockRegistryLeaderInitiator.class);
			eventually().until(() -> initiator.getContext().isLeader());
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/leader")).hasSize(1));
			// Injection points typed as Spring Integration 6 and 7 declared them all
			// match
			LeaderConfiguration configuration = context.getBean(LeaderConfiguration.class);
			assertThat(configuration.raw).isSameAs(context.getBean(LockRegistry.class));
			assertThat(configuration.expirable).isSameAs(configuration.raw);
			assertThat(configuration.ofZkLocks).isSameAs(configuration.raw);
		});
	}

	@Test
	void backsOffWithoutSpringIntegration() {
		runner().withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((context) -> assertThat(context).hasSingleBean(ZkLockRegistry.class)
				.doesNotHaveBean(ZkLockIntegrationLockRegistry.class));
	}

	@Test
	void backsOffFromTheApplicationsLockRegistry() {
		runner().withBean("myLocks", DefaultLockRegistry.class, DefaultLockRegistry::new)
			.run((context) -> assertThat(context).hasSingleBean(LockRegistry.class)
				.hasBean("myLocks")
				.doesNotHaveBean(ZkLockIntegrationLockRegistry.class));
	}

	@Test
	void isSwitchedOffByProperty() {
		runner().withPropertyValues("zklock.integration.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(ZkLockRegistry.class)
				.doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void backsOffWhenZkLockIsDisabled() {
		runner().withPropertyValues("zklock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLockRegistry.class)
				.doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void adaptersAreRegisteredAutoConfigurations() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(ZkLockIntegrationAutoConfiguration.class.getName(),
					ZkLockShedLockAutoConfiguration.class.getName());
	}

	@Configuration(proxyBeanMethods = false)
	static class LeaderConfiguration {

		@SuppressWarnings("rawtypes")
		LockRegistry raw;

		ExpirableLockRegistry<?> expirable;

		LockRegistry<ZkLock> ofZkLocks;

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> locks) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(locks);
			initiator.setHeartBeatMillis(100);
			return initiator;
		}

		@org.springframework.beans.factory.annotation.Autowired
		void setLocks(@SuppressWarnings("rawtypes") LockRegistry raw, ExpirableLockRegistry<?> expirable,
				LockRegistry<ZkLock> ofZkLocks) {
			this.raw = raw;
			this.expirable = expirable;
			this.ofZkLocks = ofZkLocks;
		}

	}

}
