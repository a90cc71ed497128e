package dev.zklock.integration;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link ZkLockIntegrationLockRegistry} against Spring Integration's {@link LockRegistry}
 * contract, on a real in-process ZooKeeper. Each registry has its own Curator client, so
 * its own ZooKeeper session: what another JVM is to the server.
 */
@Timeout(60)
class ZkLockIntegrationLockRegistryTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ZkLockIntegrationLockRegistry newLockRegistry() throws InterruptedException {
		return new ZkLockIntegrationLockRegistry(this.zk.newRegistry());
	}

	@Test
	void obtainReturnsAReentrantLockHeldThroughOneNode() throws Exception {
		LockRegistry<ZkLock> registry = newLockRegistry();
		LockRegistry<ZkLock> otherJvm = newLockRegistry();
		ZkLock lock = registry.obtain("orders");
		assertThat(lock.path()).isEqualTo("/locks/orders");
		lock.lock();
		// A lock obtained again for the same key is the same lock, entered again
		assertThat(registry.obtain("orders").tryLock()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/orders")).hasSize(1));
		lock.unlock();
		assertThat(otherJvm.obtain("orders").tryLock()).as("still held once").isFalse();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		Lock remote = otherJvm.obtain("orders");
		assertThat(remote.tryLock(10, TimeUnit.SECONDS)).isTrue();
		remote.unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/orders")).isEmpty());
	}

	@Test
	void lockIsOwnedByTheThreadThatLockedIt() throws Exception {
		LockRegistry<ZkLock> registry = newLockRegistry();
		ZkLock lock = registry.obtain("owned");
		lock.lock();
		try {
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				Future<Boolean> attempt = executor
					.submit(() -> registry.obtain("owned").tryLock(200, TimeUnit.MILLISECONDS));
				assertThat(attempt.get(20, TimeUnit.SECONDS)).isFalse();
				Future<?> foreignUnlock = executor.submit(() -> registry.obtain("owned").unlock());
				assertThat(foreignUnlock).failsWithin(Duration.ofSeconds(20))
					.withThrowableOfType(java.util.concurrent.ExecutionException.class)
					.withCauseInstanceOf(IllegalMonitorStateException.class);
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(lock.isHeldByCurrentThread()).isTrue();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void tryLockWaitsAtMostItsTimeoutForAnotherJvmThenSucceedsOnceReleased() throws Exception {
		LockRegistry<ZkLock> registry = newLockRegistry();
		LockRegistry<ZkLock> otherJvm = newLockRegistry();
		ZkLock held = otherJvm.obtain("busy");
		held.lock();
		Lock lock = registry.obtain("busy");
		long start = System.nanoTime();
		assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250))
			.isLessThan(Duration.ofSeconds(15));
		CountDownLatch waiting = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> attempt = executor.submit(() -> {
				waiting.countDown();
				Lock mine = registry.obtain("busy");
				boolean acquired = mine.tryLock(20, TimeUnit.SECONDS);
				if (acquired) {
					mine.unlock();
				}
				return acquired;
			});
			assertThat(waiting.await(20, TimeUnit.SECONDS)).isTrue();
			held.unlock();
			assertThat(attempt.get(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void twoRegistriesOnTwoSessionsExcludeEachOther() throws Exception {
		List<LockRegistry<ZkLock>> registries = List.of(newLockRegistry(), newLockRegistry());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger entries = new AtomicInteger();
		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		int threadsPerRegistry = 3;
		int iterations = 15;
		ExecutorService executor = Executors.newFixedThreadPool(registries.size() * threadsPerRegistry);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (LockRegistry<ZkLock> registry : registries) {
				for (int t = 0; t < threadsPerRegistry; t++) {
					futures.add(executor.submit(() -> {
						start.await();
						for (int i = 0; i < iterations; i++) {
							Lock lock = registry.obtain("shared");
							lock.lockInterruptibly();
							try {
								if (inside.incrementAndGet() != 1) {
									failures.add("two holders at once in iteration " + i);
								}
								entries.incrementAndGet();
								Thread.sleep(1);
								inside.decrementAndGet();
							}
							finally {
								lock.unlock();
							}
						}
						return null;
					}));
				}
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(50, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(failures).isEmpty();
		assertThat(entries).hasValue(registries.size() * threadsPerRegistry * iterations);
	}

	@Test
	void executeLockedRunsTheTaskUnderTheLockAndReleasesIt() throws Exception {
		LockRegistry<ZkLock> registry = newLockRegistry();
		LockRegistry<ZkLock> otherJvm = newLockRegistry();
		String result = registry.executeLocked("report", () -> {
			assertThat(registry.obtain("report").isHeldByCurrentThread()).isTrue();
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/report")).hasSize(1));
			return "done";
		});
		assertThat(result).isEqualTo("done");
		AtomicInteger runs = new AtomicInteger();
		registry.executeLocked("report", Duration.ofSeconds(10), () -> {
			runs.incrementAndGet();
		});
		registry.executeLocked("report", () -> {
			runs.incrementAndGet();
		});
		assertThat(runs).hasValue(2);
		assertThat(registry.obtain("report").isHeldByCurrentThread()).isFalse();
		Lock remote = otherJvm.obtain("report");
		assertThat(remote.tryLock(10, TimeUnit.SECONDS)).isTrue();
		remote.unlock();
	}

	@Test
	void executeLockedPropagatesTheTaskFailureAndReleasesTheLock() throws Exception {
		LockRegistry<ZkLock> registry = newLockRegistry();
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> registry.executeLocked("failing", () -> {
			throw new IOException("boom");
		})).withMessage("boom");
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> registry.executeLocked("failing", Duration.ofSeconds(10), () -> {
				throw new IOException("bang");
			}))
			.withMessage("bang");
		assertThat(registry.obtain("failing").isHeldByCurrentThread()).isFalse();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/failing")).isEmpty());
	}

	@Test
	void executeLockedWithAWaitTimesOutWhileAnotherJvmHoldsTheLock() throws Exception {
		LockRegistry<ZkLock> registry = newLockRegistry();
		LockRegistry<ZkLock> otherJvm = newLockRegistry();
		ZkLock held = otherJvm.obtain("nightly");
		held.lock();
		try {
			AtomicInteger runs = new AtomicInteger();
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> registry.executeLocked("nightly", Duration.ofMillis(200), () -> {
					runs.incrementAndGet();
				}))
				.withMessageContaining("nightly");
			assertThat(runs).hasValue(0);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void keysOtherThanStringsAreTheirToString() throws Exception {
		ZkLockIntegrationLockRegistry registry = newLockRegistry();
		UUID correlation = UUID.fromString("0b3b4d52-5d1c-4f4e-9d1a-6f1c2f7e9a10");
		assertThat(registry.obtain(correlation).path()).isEqualTo("/locks/" + correlation);
		assertThat(registry.obtain(42L).key()).isEqualTo("42");
		assertThat(registry.obtain(new StringBuilder("built")).key()).isEqualTo("built");
		assertThat(registry.executeLocked(correlation, () -> registry.getRegistry().heldCount())).isEqualTo(1);
	}

	@Test
	void keysThatCannotBeZkLockKeysAreRejectedByName() throws Exception {
		ZkLockIntegrationLockRegistry registry = newLockRegistry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain("orders/42"))
			.withMessageContaining("'orders/42'")
			.withMessageContaining("java.lang.String")
			.withMessageContaining("contains '/'");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(" "))
			.withMessageContaining("empty or blank");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(new Object()))
			.withMessageContaining("java.lang.Object")
			.withMessageContaining("toString()");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(new int[] { 1 }))
			.withMessageContaining("[I");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.keyFor(null)).withMessageContaining("null");
		assertThat(registry.getRegistry().size()).isZero();
	}

	@Test
	void expiringUnusedLocksLeavesHeldLocksAlone() throws Exception {
		ExpirableLockRegistry<ZkLock> registry = newLockRegistry();
		LockRegistry<ZkLock> otherJvm = newLockRegistry();
		ZkLock lock = registry.obtain("kept");
		lock.lock();
		try {
			registry.expireUnusedOlderThan(0);
			assertThat(lock.isHeldByCurrentThread()).isTrue();
			assertThat(otherJvm.obtain("kept").tryLock()).isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void reenteringALockWhoseSessionExpiredThrowsUntilUnlocked() throws Exception {
		ZkLockIntegrationLockRegistry registry = newLockRegistry();
		ZkLockRegistry engine = registry.getRegistry();
		ZkLock lock = registry.obtain("expiring");
		lock.lock();
		long token = lock.fencingToken();
		engine.getClient().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
		eventually().until(lock::leaseState, (state) -> state == LeaseState.LOST);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::tryLock)
			.withMessageContaining("'expiring'");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock);
		assertThat(lock.isHeldByCurrentThread()).as("a failed re-entry counts no hold").isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		// Free of the lost hold, the next attempt competes afresh on the new session
		assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
		assertThat(lock.fencingToken()).isGreaterThan(token);
		lock.unlock();
	}

}
