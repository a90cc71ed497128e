package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every call of this JVM that waits for a key is one waiter, in
 * {@link ZkLockRegistry#waitingCount()} (the {@code zklock.waiting} gauge) and in the
 * {@link LocalLockInfo} of its key alike: the call that waits for its turn in ZooKeeper
 * as much as those queued behind it in this JVM, and a semaphore's caller once, not again
 * for the guard it holds while it waits.
 */
@Timeout(120)
class LocalWaitersTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void writersWaitingBehindAnotherParticipantAreEachAWaiter() throws Exception {
		ZkLockRegistry otherJvm = this.zk.newRegistry();
		ZkLock reading = otherJvm.obtainReadWrite("catalog").readLock();
		reading.acquire(WAIT);
		ZkLockRegistry registry = this.zk.newRegistry();
		List<CompletableFuture<Void>> writers = new ArrayList<>();
		try {
			for (int calls = 1; calls <= 2; calls++) {
				writers.add(CompletableFuture.runAsync(() -> {
					ZkLock writing = registry.obtainReadWrite("catalog").writeLock();
					writing.acquire(WAIT);
					writing.unlock();
				}, TestThreads.EXECUTOR));
				int expected = calls;
				eventually().untilAsserted(() -> assertWaiters(registry, expected, LocalWaiter.Mode.WRITE));
			}
		}
		finally {
			reading.unlock();
		}
		for (CompletableFuture<Void> writer : writers) {
			writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		eventually().until(() -> registry.waitingCount() == 0 && registry.localLocks().isEmpty());
	}

	@Test
	void aCallerWaitingForAPermitIsOneWaiterThoughItHoldsTheGuard() throws Exception {
		ZkLockRegistry otherJvm = this.zk.newRegistry();
		ZkLease taken = otherJvm.obtainSemaphore("render", 1).acquire(WAIT);
		ZkLockRegistry registry = this.zk.newRegistry();
		List<CompletableFuture<Void>> callers = new ArrayList<>();
		try {
			for (int calls = 1; calls <= 2; calls++) {
				callers.add(CompletableFuture.runAsync(
						() -> registry.obtainSemaphore("render", 1).acquire(WAIT).release(), TestThreads.EXECUTOR));
				int expected = calls;
				eventually().untilAsserted(() -> assertWaiters(registry, expected, LocalWaiter.Mode.SEMAPHORE));
			}
		}
		finally {
			taken.release();
		}
		for (CompletableFuture<Void> caller : callers) {
			caller.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		eventually().until(() -> registry.waitingCount() == 0 && registry.localLocks().isEmpty());
	}

	private static void assertWaiters(ZkLockRegistry registry, int calls, LocalWaiter.Mode mode) {
		assertThat(registry.waitingCount()).isEqualTo(calls);
		List<LocalLockInfo> infos = registry.localLocks();
		assertThat(infos.stream().mapToInt(LocalLockInfo::waiters).sum()).as("%s", infos).isEqualTo(calls);
		assertThat(infos.stream().flatMap((info) -> info.waiting().stream()).toList()).hasSize(calls)
			.allSatisfy((waiter) -> assertThat(waiter.mode()).isEqualTo(mode));
	}

}
