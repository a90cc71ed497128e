package dev.zklock.autoconfigure.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.shedlock.ZkLockShedLockProvider;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ZkLockShedLockAutoConfiguration}, against a real in-process ZooKeeper.
 */
@Timeout(60)
class ZkLockShedLockAutoConfigurationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLockShedLockAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s");
	}

	private static LockConfiguration config(String name, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, Duration.ofMinutes(5), lockAtLeastFor);
	}

	@Test
	void providesALockProviderBackedByTheZkLockRegistry() {
		runner().run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class)
				.hasSingleBean(ZkLockShedLockProvider.class)
				.hasBean("zkLockShedLockProvider");
			AtomicInteger runs = new AtomicInteger();
			new DefaultLockingTaskExecutor(context.getBean(LockProvider.class)).executeWithLock((Runnable) () -> {
				runs.incrementAndGet();
				try {
					eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/nightly-report")).hasSize(1));
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}, config("nightly-report", Duration.ZERO));
			assertThat(runs).hasValue(1);
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/nightly-report")).isEmpty());
		});
	}

	@Test
	void theProviderIsClosedWithTheContext() {
		AtomicReference<ZkLockRegistry> registry = new AtomicReference<>();
		// The graceful stop keeps it for the shutdown phase's timeout, then close lets go
		runner().withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=200ms")
			.run((context) -> {
				registry.set(context.getBean(ZkLockRegistry.class));
				ZkLockShedLockProvider provider = context.getBean(ZkLockShedLockProvider.class);
				Optional<SimpleLock> lock = provider.lock(config("held-at-least", Duration.ofMinutes(1)));
				assertThat(lock).isNotEmpty();
				lock.get().unlock();
				// Unlocked, and held for its lockAtLeastFor
				assertThat(registry.get().heldCount()).isEqualTo(1);
			});
		assertThat(registry.get().heldCount()).isZero();
	}

	@Test
	void backsOffWithoutShedLock() {
		runner().withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasSingleBean(ZkLockRegistry.class)
				.doesNotHaveBean(ZkLockShedLockProvider.class));
	}

	@Test
	void backsOffFromTheApplicationsLockProvider() {
		LockProvider own = (configuration) -> Optional.empty();
		runner().withBean("myLockProvider", LockProvider.class, () -> own)
			.run((context) -> assertThat(context).hasSingleBean(LockProvider.class)
				.hasBean("myLockProvider")
				.doesNotHaveBean(ZkLockShedLockProvider.class));
	}

	@Test
	void isSwitchedOffByProperty() {
		runner().withPropertyValues("zklock.shedlock.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(ZkLockRegistry.class)
				.doesNotHaveBean(LockProvider.class));
	}

	@Test
	void backsOffWhenZkLockIsDisabled() {
		runner().withPropertyValues("zklock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLockRegistry.class)
				.doesNotHaveBean(LockProvider.class));
	}

}
