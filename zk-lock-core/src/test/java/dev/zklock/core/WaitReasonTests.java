package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The reason a wait that runs out gives says what happened (issue 38, item 3): busy when
 * the wait was spent queued behind another holder, here or in another JVM, even if the
 * wait ends during the round trip that follows; {@code NO_REPLY} only when ZooKeeper
 * itself used the wait on a connected client; never {@code NOT_CONNECTED} while
 * connected.
 */
@Timeout(180)
@TimingSensitive
class WaitReasonTests {

	/** Threads per registry that contend for the key. */
	private static final int THREADS = 4;

	/** Waits per thread and recipe. */
	private static final int WAITS = 200;

	/**
	 * How long a reply must have been outstanding for a wait to be {@code NO_REPLY}: a
	 * 5-60 ms wait that took this long was stalled, as happens on a loaded machine.
	 */
	private static final long NO_REPLY_STALL_MS = 250;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		this.executor.shutdownNow();
	}

	@Test
	void contendedShortWaitsOfEveryRecipeRunOutBusy() throws Exception {
		// Two JVMs; few local hand-offs, so that a thread granted the local slot often
		// has to create a node of its own with what is left of its wait
		ZkLockOptions options = ZkLockOptions.defaults().withMaxLocalHandoffs(1);
		ZkLockRegistry first = this.zk.newRegistry(options);
		ZkLockRegistry second = this.zk.newRegistry(options);
		Map<String, Map<Reason, Long>> reasons = new ConcurrentHashMap<>();
		reasons.put("mutex", contend(List.of(first, second), (registry, wait) -> {
			ZkLock lock = registry.obtain("contended-mutex");
			lock.acquire(wait);
			hold();
			lock.unlock();
		}));
		reasons.put("write lock", contend(List.of(first, second), (registry, wait) -> {
			ZkLock lock = registry.obtainReadWrite("contended-write").writeLock();
			lock.acquire(wait);
			hold();
			lock.unlock();
		}));
		reasons.put("semaphore", contend(List.of(first, second), (registry, wait) -> {
			// tryAcquire: a busy semaphore is null, anything else throws
			ZkLease lease = registry.obtainSemaphore("contended-semaphore", 2).tryAcquire(wait);
			if (lease == null) {
				throw new LockAcquisitionException("contended-semaphore", "", wait, Reason.HELD_REMOTELY, "null", null);
			}
			hold();
			lease.release();
		}));
		System.err.println("[measure] reasons of contended waits of 5-60 ms that ran out: " + reasons);
		reasons.forEach((recipe, counts) -> {
			assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).as("%s waits that ran out", recipe)
				.isPositive();
			assertThat(counts).as("%s: reasons of waits that ran out", recipe)
				.doesNotContainKeys(Reason.NO_REPLY, Reason.NOT_CONNECTED, Reason.ERROR);
		});
	}

	/**
	 * A wait with nothing queued ahead of it, all of it spent on a reply that does not
	 * come, is ZooKeeper's failure; so is one spent mostly so after a short local queue.
	 * One that the local queue used most of is busy, even if the last round trip did not
	 * come back either.
	 */
	@Test
	void repliesThatDoNotComeAreStillNoReply() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		// No local hand-off: a waiter granted the slot creates a node of its own
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()),
				ZkLockOptions.defaults().withMaxLocalHandoffs(0));
		ZkLock lock = registry.obtain("frozen");
		// Warmed up, so that the first acquisition's class loading does not eat into the
		// stall
		awaitUnstalled(registry, "frozen");
		// Nothing ahead: the create's reply is held back past the wait (and less than the
		// 2.7 s after which the client would give up on the connection)
		proxy.stall(Duration.ofMillis(2000));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> lock.acquire(Duration.ofMillis(1000)))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.NO_REPLY));
		awaitUnstalled(registry, "frozen");
		// A local holder for 100 ms of a 1.2 s wait, then replies held back
		assertThat(waitBehindLocalHolder(registry, proxy, "frozen", 100, 1200)).isEqualTo(Reason.NO_REPLY);
		awaitUnstalled(registry, "frozen");
		// A local holder for 1 s of a 1.2 s wait, then replies held back: busy
		assertThat(waitBehindLocalHolder(registry, proxy, "frozen", 1000, 1200)).isEqualTo(Reason.HELD_LOCALLY);
	}

	private Reason waitBehindLocalHolder(ZkLockRegistry registry, ZkFaultProxy proxy, String key, long holdMs,
			long waitMs) throws Exception {
		ZkLock lock = registry.obtain(key);
		lock.lock();
		Future<Reason> waiter = this.executor.submit(() -> {
			try {
				registry.obtain(key).acquire(Duration.ofMillis(waitMs));
				registry.obtain(key).unlock();
				return null;
			}
			catch (LockAcquisitionException ex) {
				return ex.getReason();
			}
		});
		InProcessZooKeeper.eventually().until(() -> registry.waitingCount() == 1);
		Thread.sleep(holdMs);
		proxy.stall(Duration.ofMillis(waitMs + 600));
		lock.unlock();
		return waiter.get(10, TimeUnit.SECONDS);
	}

	private static void awaitUnstalled(ZkLockRegistry registry, String key) {
		InProcessZooKeeper.eventually().untilAsserted(() -> {
			ZkLock lock = registry.obtain(key);
			assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
			lock.unlock();
		});
	}

	@FunctionalInterface
	private interface Attempt {

		void run(ZkLockRegistry registry, Duration wait) throws Exception;

	}

	/**
	 * Every registry's threads wait 5 to 60 ms for the key in turn, {@link #WAITS} times
	 * each; the reasons of the waits that ran out, counted.
	 */
	private Map<Reason, Long> contend(List<ZkLockRegistry> registries, Attempt attempt) throws Exception {
		Map<Reason, LongAdder> counts = new ConcurrentHashMap<>();
		List<Future<?>> threads = new ArrayList<>();
		for (ZkLockRegistry registry : registries) {
			for (int t = 0; t < THREADS; t++) {
				threads.add(this.executor.submit(() -> {
					for (int i = 0; i < WAITS; i++) {
						Duration wait = Duration.ofMillis(ThreadLocalRandom.current().nextInt(5, 61));
						long start = System.nanoTime();
						try {
							attempt.run(registry, wait);
						}
						catch (LockAcquisitionException ex) {
							long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
							if (ex.getReason() == Reason.NO_REPLY && tookMs >= NO_REPLY_STALL_MS) {
								// A reply outstanding this long is ZooKeeper's (or a
								// loaded
								// machine's), as the rule says: not a busy wait
								// misreported
								System.err.println("[stalled, " + tookMs + " ms] " + ex.getMessage());
								continue;
							}
							counts.computeIfAbsent(ex.getReason(), (reason) -> new LongAdder()).increment();
							if (!ex.getReason().name().startsWith("HELD_")) {
								System.err.println("[unexpected, " + tookMs + " ms] " + ex.getMessage());
							}
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> thread : threads) {
			thread.get(120, TimeUnit.SECONDS);
		}
		Map<Reason, Long> result = new EnumMap<>(Reason.class);
		counts.forEach((reason, count) -> result.put(reason, count.sum()));
		return result;
	}

	private static void hold() {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(1, 4)));
	}

}
