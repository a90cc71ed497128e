package dev.zklock.template;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.TimingSensitive;
import dev.zklock.core.registry.ZkLockRegistry;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@link ZkLockTemplate}'s minimum holds across its lifecycle, without Spring: a stop
 * keeps the pending ones until they end and takes no new one; a close releases them at
 * once. The other registry has its own ZooKeeper session, as another instance would.
 */
@Timeout(60)
class MinimumHoldSchedulerStopTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private ZkLockRegistry registry;

	private ZkLockRegistry otherInstance;

	private ZkLockTemplate template;

	@BeforeEach
	void start() throws Exception {
		this.registry = this.zk.newRegistry();
		this.otherInstance = this.zk.newRegistry();
		this.template = new ZkLockTemplate(this.registry, ObservationRegistry.NOOP);
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
		this.template.close();
		this.registry.close();
		this.otherInstance.close();
	}

	private static LockDefinition job(Duration hold) {
		return LockDefinition.named("job").withWaitAtMost(Duration.ZERO).withHoldAtLeast(hold);
	}

	/**
	 * Whether the other instance gets the lock now, with one attempt; it gives it back
	 * before this returns.
	 */
	private boolean otherInstanceLocks(String key) throws InterruptedException {
		try {
			this.otherInstance.acquireLease(key, Duration.ZERO).release();
			assertThat(this.otherInstance.awaitReleased(Duration.ofSeconds(10))).isTrue();
			return true;
		}
		catch (LockAcquisitionException ex) {
			if (ex.getReason() == LockAcquisitionException.Reason.HELD_REMOTELY) {
				return false;
			}
			throw ex;
		}
	}

	private static Duration since(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	@TimingSensitive
	@Test
	void aStopKeepsThePendingHoldsUntilTheyEnd() throws Exception {
		Duration hold = Duration.ofMillis(1500);
		long start = System.nanoTime();
		assertThat(this.template.execute(job(hold), List.of("job"), () -> "ran")).isEqualTo("ran");
		this.template.acquireLease(job(hold), List.of("lease")).release();
		CountDownLatch stopped = new CountDownLatch(1);
		this.template.stop(stopped::countDown);
		assertThat(this.template.isRunning()).isFalse();
		assertThat(stopped.getCount()).as("stop's callback while the holds wait").isOne();
		assertThat(otherInstanceLocks("job")).isFalse();
		assertThat(otherInstanceLocks("lease")).isFalse();
		assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(since(start)).as("stop's callback after the start of the holds").isGreaterThanOrEqualTo(hold);
		eventually().until(() -> otherInstanceLocks("job") && otherInstanceLocks("lease"));
	}

	@Test
	void aStoppedTemplateTakesNoNewMinimumHoldUntilStartedAgain() throws Exception {
		CountDownLatch stopped = new CountDownLatch(1);
		this.template.stop(stopped::countDown);
		assertThat(stopped.getCount()).as("stop's callback with no hold pending").isZero();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.template.execute(job(Duration.ofSeconds(1)), List.of("job"), () -> "ran"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.CLOSED))
			.withMessageStartingWith("Could not acquire lock 'job' (ZooKeeper path /locks/job) after waiting 0 ms: ")
			.withMessageContaining("the application is stopping, and a lock held at least PT1S is not taken then");
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.template.acquireLease(job(Duration.ofSeconds(1)), List.of("job")));
		assertThat(otherInstanceLocks("job")).as("nothing left in ZooKeeper").isTrue();
		// Locks without a minimum hold serve the work that still runs while stopping
		assertThat(this.template.execute("job", "job", Duration.ZERO, () -> "ran")).isEqualTo("ran");
		this.template.start();
		assertThat(this.template.isRunning()).isTrue();
		assertThat(this.template.execute(job(Duration.ofMillis(100)), List.of("job"), () -> "ran")).isEqualTo("ran");
	}

	@TimingSensitive
	@Test
	void aHoldWhoseWorkEndsAfterTheStopIsKeptToo() throws Exception {
		Duration hold = Duration.ofSeconds(3);
		CountDownLatch working = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		long start = System.nanoTime();
		Future<String> work = this.executor.submit(() -> this.template.execute(job(hold), List.of("job"), () -> {
			working.countDown();
			finish.await();
			return "ran";
		}));
		assertThat(working.await(20, TimeUnit.SECONDS)).isTrue();
		CountDownLatch stopped = new CountDownLatch(1);
		this.template.stop(stopped::countDown);
		// Nothing was pending: the stop is done; the running work's hold started before
		assertThat(stopped.getCount()).isZero();
		finish.countDown();
		assertThat(work.get(20, TimeUnit.SECONDS)).isEqualTo("ran");
		assertThat(otherInstanceLocks("job")).isFalse();
		eventually().until(() -> otherInstanceLocks("job"));
		assertThat(since(start)).isGreaterThanOrEqualTo(hold);
	}

	@TimingSensitive
	@Test
	void theBlockingStopReturnsOnceThePendingHoldsHaveEnded() throws Exception {
		Duration hold = Duration.ofMillis(1500);
		long start = System.nanoTime();
		this.template.execute(job(hold), List.of("job"), () -> "ran");
		this.template.stop();
		assertThat(since(start)).isGreaterThanOrEqualTo(hold);
		eventually().until(() -> otherInstanceLocks("job"));
	}

	@TimingSensitive
	@Test
	void aCloseWithoutAStopReleasesThePendingHoldsAtOnce() throws Exception {
		Duration hold = Duration.ofMinutes(1);
		long start = System.nanoTime();
		this.template.execute(job(hold), List.of("job"), () -> "ran");
		assertThat(otherInstanceLocks("job")).isFalse();
		this.template.close();
		eventually().until(() -> otherInstanceLocks("job"));
		assertThat(since(start)).isLessThan(hold.dividedBy(2));
		assertThat(this.template.isRunning()).isFalse();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.template.execute(job(hold), List.of("job"), () -> "ran"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.CLOSED));
	}

}
