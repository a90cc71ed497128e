package dev.zklock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.JdkSensitive;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.TimingSensitive;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link ZkLockShedLockProvider} against ShedLock's lock provider contract, on a real
 * in-process ZooKeeper. The cases are those of ShedLock's own
 * {@code AbstractLockProviderIntegrationTest} and
 * {@code AbstractExtensibleLockProviderIntegrationTest} (whose
 * {@code shedlock-test-support} module is not published), with timing asserted as bounds
 * that hold on a loaded machine. Each provider has its own Curator client, so its own
 * ZooKeeper session: what another JVM is to the server ({@link #provider} is the kit's
 * application, {@link #otherJvm} a participant).
 */
@JdkSensitive
@Timeout(60)
class ZkLockShedLockProviderTests {

	private static final String NAME = "name";

	/** The 4 s sessions and 20 s waits of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	private final List<ZkLockShedLockProvider> providers = new ArrayList<>();

	private ZkLockShedLockProvider provider;

	private ZkLockShedLockProvider otherJvm;

	/**
	 * The registry of {@link #provider}: a lock waiting for its lockAtLeastFor is held
	 * there.
	 */
	private ZkLockRegistry registry;

	@AfterEach
	void closeProviders() {
		this.providers.forEach(ZkLockShedLockProvider::close);
	}

	private ZkLockShedLockProvider newProvider(ZkLockRegistry registry) {
		ZkLockShedLockProvider provider = new ZkLockShedLockProvider(registry);
		this.providers.add(provider);
		return provider;
	}

	private void twoJvms() {
		this.registry = zk.registry();
		this.provider = newProvider(this.registry);
		this.otherJvm = newProvider(zk.newParticipant());
	}

	private static LockConfiguration config(String name) {
		return config(name, Duration.ofMinutes(5), Duration.ZERO);
	}

	private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	private static void assertLocked(String name) {
		zk.assertThatKey(name).isHeld().hasWaiters(0);
	}

	private static void assertUnlocked(String name) {
		zk.assertThatKey(name).isNotHeld();
	}

	@Test
	void shouldCreateLock() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME));
		assertThat(lock).isNotEmpty();
		assertLocked(NAME);
		lock.get().unlock();
		assertUnlocked(NAME);
	}

	@Test
	void shouldNotReturnSecondLockInThisJvmNorInAnother() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME));
		assertThat(lock).isNotEmpty();
		assertThat(this.provider.lock(config(NAME))).isEmpty();
		assertThat(this.otherJvm.lock(config(NAME))).isEmpty();
		lock.get().unlock();
		Optional<SimpleLock> remote = this.otherJvm.lock(config(NAME));
		assertThat(remote).isNotEmpty();
		assertThat(this.provider.lock(config(NAME))).isEmpty();
		remote.get().unlock();
	}

	@Test
	void shouldCreateTwoIndependentLocks() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock1 = this.provider.lock(config(NAME));
		Optional<SimpleLock> lock2 = this.otherJvm.lock(config("name2"));
		assertThat(lock1).isNotEmpty();
		assertThat(lock2).isNotEmpty();
		lock1.get().unlock();
		lock2.get().unlock();
		assertUnlocked(NAME);
		assertUnlocked("name2");
	}

	@Test
	void shouldLockTwiceInARow() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock1 = this.provider.lock(config(NAME));
		assertThat(lock1).isNotEmpty();
		lock1.get().unlock();
		Optional<SimpleLock> lock2 = this.provider.lock(config(NAME));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	@Test
	void shouldBeAbleToLockRightAfterUnlock() throws Exception {
		twoJvms();
		for (int i = 0; i < 10; i++) {
			LockProvider locker = (i % 2 == 0) ? this.provider : this.otherJvm;
			LockProvider other = (i % 2 == 0) ? this.otherJvm : this.provider;
			Optional<SimpleLock> lock = locker.lock(config(NAME));
			assertThat(lock).isNotEmpty();
			assertThat(other.lock(config(NAME))).isEmpty();
			lock.get().unlock();
		}
	}

	@TimingSensitive
	@Test
	void lockAtMostForReleasesALockThatIsNeverUnlocked() throws Exception {
		twoJvms();
		Duration lockAtMostFor = Duration.ofMillis(300);
		// Measured from before the call: the lock is taken, and its durations start,
		// within it
		long lockedAt = System.nanoTime();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, lockAtMostFor, Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> remote = awaitLock(this.otherJvm, config(NAME));
		assertThat(Duration.ofNanos(System.nanoTime() - lockedAt)).as("released only once lockAtMostFor passed")
			.isGreaterThanOrEqualTo(lockAtMostFor);
		// The task ends late: its unlock must not touch the lock another node holds now
		lock.get().unlock();
		assertLocked(NAME);
		assertThat(this.provider.lock(config(NAME))).isEmpty();
		remote.get().unlock();
		assertUnlocked(NAME);
	}

	@TimingSensitive
	@Test
	void shouldLockAtLeastFor() throws Exception {
		twoJvms();
		Duration lockAtLeastFor = Duration.ofSeconds(1);
		long lockedAt = System.nanoTime();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, lockAtLeastFor.multipliedBy(2), lockAtLeastFor));
		assertThat(lock).isNotEmpty();
		lock.get().unlock();
		// Unlocked, yet held until lockAtLeastFor has passed
		assertThat(this.registry.heldCount()).isEqualTo(1);
		assertLocked(NAME);
		assertThat(this.provider.lock(config(NAME))).as("grace period not over in this JVM").isEmpty();
		Optional<SimpleLock> remote = awaitLock(this.otherJvm, config(NAME));
		assertThat(Duration.ofNanos(System.nanoTime() - lockedAt)).as("other node locked only after lockAtLeastFor")
			.isGreaterThanOrEqualTo(lockAtLeastFor);
		assertThat(this.registry.heldCount()).isZero();
		remote.get().unlock();
	}

	@Test
	void anUnlockAfterLockAtLeastForReleasesAtOnce() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofMinutes(1), Duration.ofMillis(100)));
		assertThat(lock).isNotEmpty();
		Thread.sleep(150);
		lock.get().unlock();
		assertThat(this.registry.heldCount()).isZero();
		assertUnlocked(NAME);
	}

	@Test
	void aNodeThatDiesReleasesItsLocksWithItsSessionNotAtLockAtMostFor() throws Exception {
		ZkLockShedLockProvider dying = newProvider(zk.registry());
		this.otherJvm = newProvider(zk.newParticipant());
		assertThat(dying.lock(config(NAME, Duration.ofMinutes(10), Duration.ofMinutes(5)))).isNotEmpty();
		assertThat(this.otherJvm.lock(config(NAME))).isEmpty();
		// The node dies without unlocking: its session expires, its ephemeral lock node
		// goes
		zk.expireSession();
		Optional<SimpleLock> remote = awaitLock(this.otherJvm, config(NAME));
		remote.get().unlock();
	}

	@Test
	void twoProvidersOnTwoSessionsRunEachTaskOnceAtATime() throws Exception {
		twoJvms();
		// ShedLock's FuzzTester: threads of both JVMs run two jobs through the executor;
		// a lost update of a job's counter would mean two runs at once
		List<LockingTaskExecutor> executors = List.of(new DefaultLockingTaskExecutor(this.provider),
				new DefaultLockingTaskExecutor(this.otherJvm));
		AtomicLong[] counters = { new AtomicLong(), new AtomicLong() };
		int threads = 8;
		int iterations = 20;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				LockingTaskExecutor executor = executors.get(t % 2);
				int job = (t / 2) % 2;
				futures.add(pool.submit(() -> {
					start.await();
					AtomicInteger done = new AtomicInteger();
					while (done.get() < iterations) {
						int before = done.get();
						executor.executeWithLock((Runnable) () -> {
							long n = counters[job].get();
							LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
							counters[job].set(n + 1);
							done.incrementAndGet();
						}, config("job" + job, Duration.ofMinutes(5), Duration.ofMillis(5)));
						if (done.get() == before) {
							// Skipped: try again soon, as a scheduler would, without
							// spinning
							LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(50, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(counters[0]).hasValue(threads / 2 * iterations);
		assertThat(counters[1]).hasValue(threads / 2 * iterations);
	}

	@Test
	void lockingTaskExecutorSkipsTheTaskWhileAnotherNodeHoldsItsLockAtLeast() throws Exception {
		twoJvms();
		LockingTaskExecutor here = new DefaultLockingTaskExecutor(this.provider);
		LockingTaskExecutor there = new DefaultLockingTaskExecutor(this.otherJvm);
		AtomicInteger runs = new AtomicInteger();
		LockConfiguration config = config("report", Duration.ofSeconds(30), Duration.ofSeconds(30));
		here.executeWithLock((Runnable) runs::incrementAndGet, config);
		there.executeWithLock((Runnable) runs::incrementAndGet, config("report"));
		here.executeWithLock((Runnable) runs::incrementAndGet, config("report"));
		assertThat(runs).hasValue(1);
	}

	@Test
	void shouldBeAbleToExtendLock() throws Exception {
		twoJvms();
		Duration original = Duration.ofSeconds(1);
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, original, Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> extended = lock.get().extend(Duration.ofSeconds(30), Duration.ZERO);
		assertThat(extended).isNotEmpty();
		// Past the original lockAtMostFor, the extended lock still holds
		Thread.sleep(original.toMillis() + 300);
		assertLocked(NAME);
		assertThat(this.otherJvm.lock(config(NAME))).isEmpty();
		extended.get().unlock();
		assertUnlocked(NAME);
	}

	@Test
	void shouldNotBeAbleToExtendUnlockedLock() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofSeconds(1), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		lock.get().unlock();
		assertUnlocked(NAME);
		assertThatIllegalStateException().isThrownBy(() -> lock.get().extend(Duration.ofSeconds(10), Duration.ZERO));
	}

	@Test
	void shouldNotBeAbleToExtendExpiredLock() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofMillis(1), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Thread.sleep(20);
		assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
		assertUnlocked(NAME);
	}

	@Test
	void shouldBeAbleToExtendAtLeast() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> extended = lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
		assertThat(extended).isNotEmpty();
		extended.get().unlock();
		assertLocked(NAME);
		assertThat(this.registry.heldCount()).isEqualTo(1);
		// Closing the provider without a stop lets the pending lock go at once
		this.provider.close();
		assertUnlocked(NAME);
		assertThat(this.registry.heldCount()).isZero();
		assertThatIllegalStateException().isThrownBy(() -> this.provider.lock(config(NAME)))
			.withMessageContaining("closed");
	}

	@TimingSensitive
	@Test
	void aStopKeepsTheLocksWaitingForTheirLockAtLeastForUntilItHasPassed() throws Exception {
		twoJvms();
		Duration lockAtLeastFor = Duration.ofMillis(1500);
		long lockedAt = System.nanoTime();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofMinutes(1), lockAtLeastFor));
		assertThat(lock).isNotEmpty();
		lock.get().unlock();
		CountDownLatch stopped = new CountDownLatch(1);
		this.provider.stop(stopped::countDown);
		assertThat(this.provider.isRunning()).isFalse();
		assertThat(stopped.getCount()).as("stop's callback while the lock waits").isOne();
		assertThat(this.otherJvm.lock(config(NAME))).isEmpty();
		// Stopping: a lock with a lockAtLeastFor is not taken (it could not be kept), one
		// without is
		assertThat(this.provider.lock(config("other", Duration.ofMinutes(1), Duration.ofSeconds(1)))).isEmpty();
		Optional<SimpleLock> plain = this.provider.lock(config("plain"));
		assertThat(plain).isNotEmpty();
		plain.get().unlock();
		assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - lockedAt)).as("stop's callback after the lock was taken")
			.isGreaterThanOrEqualTo(lockAtLeastFor);
		assertThat(this.registry.heldCount()).isZero();
		awaitLock(this.otherJvm, config(NAME)).get().unlock();
		// Nothing of the refused lock was left in ZooKeeper
		awaitLock(this.otherJvm, config("other")).get().unlock();
		this.provider.start();
		Optional<SimpleLock> again = this.provider.lock(config("other", Duration.ofMinutes(1), Duration.ofMillis(10)));
		assertThat(again).isNotEmpty();
		again.get().unlock();
	}

	@TimingSensitive
	@Test
	void theBlockingStopReturnsOnceTheLockAtLeastForHasPassed() throws Exception {
		twoJvms();
		Duration lockAtLeastFor = Duration.ofMillis(1500);
		long lockedAt = System.nanoTime();
		this.provider.lock(config(NAME, Duration.ofMinutes(1), lockAtLeastFor)).get().unlock();
		this.provider.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - lockedAt)).isGreaterThanOrEqualTo(lockAtLeastFor);
		awaitLock(this.otherJvm, config(NAME)).get().unlock();
	}

	@Test
	void lockCanNotBeExtendedTwice() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> extended = lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
		assertThat(extended).isNotEmpty();
		assertThatIllegalStateException()
			.isThrownBy(() -> lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9)));
		extended.get().unlock();
	}

	@Test
	void lockCanNotBeUnlockedAfterExtending() throws Exception {
		twoJvms();
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> extended = lock.get().extend(Duration.ofSeconds(10), Duration.ZERO);
		assertThat(extended).isNotEmpty();
		assertThatIllegalStateException().isThrownBy(() -> lock.get().unlock());
		assertLocked(NAME);
		extended.get().unlock();
		assertUnlocked(NAME);
	}

	@Test
	void namesThatCannotBeZkLockKeysAreRejected() throws Exception {
		twoJvms();
		assertThatIllegalArgumentException().isThrownBy(() -> this.provider.lock(config("reports/daily")))
			.withMessageContaining("ShedLock lock name 'reports/daily'")
			.withMessageContaining("contains '/'");
	}

	@Test
	void anUnreachableZooKeeperIsAnErrorNotABusyLock() throws Exception {
		twoJvms();
		zk.stopServer();
		assertThatExceptionOfType(LockException.class).isThrownBy(() -> this.provider.lock(config(NAME)))
			.withMessageContaining("'" + NAME + "'");
	}

	@Test
	void aLockWhoseSessionExpiredReportsTheLossOnUnlock() throws Exception {
		ZkLockRegistry registry = zk.registry();
		this.provider = newProvider(registry);
		Optional<SimpleLock> lock = this.provider.lock(config(NAME, Duration.ofMinutes(1), Duration.ofMinutes(1)));
		assertThat(lock).isNotEmpty();
		zk.expireSession();
		eventually().until(() -> registry.localLocks().get(0).leaseState() == LeaseState.LOST);
		// Lost already: no reason to hold it for lockAtLeastFor, and the task must learn
		// of it
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lock.get().unlock())
			.withMessageContaining("'" + NAME + "'");
		assertThat(registry.heldCount()).isZero();
	}

	/**
	 * Lock as a scheduler would: attempt after attempt, until one succeeds.
	 */
	private static Optional<SimpleLock> awaitLock(LockProvider provider, LockConfiguration config) {
		AtomicReference<Optional<SimpleLock>> acquired = new AtomicReference<>(Optional.empty());
		eventually().pollInterval(Duration.ofMillis(10)).until(() -> {
			acquired.set(provider.lock(config));
			return acquired.get().isPresent();
		});
		return acquired.get();
	}

}
