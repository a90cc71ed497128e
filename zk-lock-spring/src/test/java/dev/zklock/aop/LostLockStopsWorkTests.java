package dev.zklock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.ZkLockTestKit;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.LockContext;
import dev.zklock.annotation.OnLost;
import dev.zklock.core.JdkSensitive;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock(onLost = INTERRUPT)}: the work of a method whose lock is lost
 * while it runs is stopped (its thread interrupted, its stage completed with the loss,
 * its {@code Mono} cancelled); a method that did not opt in runs on;
 * {@link LockContext#checkHeld()} fails once the lease is lost, not before.
 */
@JdkSensitive
@Timeout(60)
class LostLockStopsWorkTests {

	/** The 4 s sessions and 20 s waits of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	@Test
	void aMethodThatStopsOnLostIsInterruptedWhenAnotherClientDeletesItsNode() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(zk, (c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			Probe probe = jobs.probe();
			CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> jobs.stopping("report"),
					TestThreads.EXECUTOR);
			assertThat(probe.holds.await(20, TimeUnit.SECONDS)).isTrue();
			deleteHeldNode("report");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> run.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining("lost while held: another client deleted its node, so");
			assertThat(probe.interrupted).hasValue("interrupted");
		}
	}

	@Test
	void onSessionExpiryOnlyTheMethodThatOptedInIsInterruptedAndCheckHeldFails() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(zk, (c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			Probe probe = jobs.probe();
			ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
			CompletableFuture<String> stopping = CompletableFuture.supplyAsync(() -> jobs.stopping("report"),
					TestThreads.EXECUTOR);
			CompletableFuture<String> continuing = CompletableFuture.supplyAsync(jobs::continuing,
					TestThreads.EXECUTOR);
			assertThat(probe.holds.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(probe.continuingHolds.await(20, TimeUnit.SECONDS)).isTrue();
			CountDownLatch auditLost = new CountDownLatch(1);
			registry.addListener(new ZkLockListener() {
				@Override
				public void leaseStateChanged(String key, String path, LeaseState state) {
					if (key.equals("audit") && state == LeaseState.LOST) {
						auditLost.countDown();
					}
				}
			});
			zk.expireSession();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> stopping.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class);
			assertThat(probe.interrupted).hasValue("interrupted");
			// Told of its own loss (after the watch that stops work was), and still
			// running
			assertThat(auditLost.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(continuing).isNotDone();
			probe.release.countDown();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> continuing.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class);
			assertThat(probe.continued)
				.hasValue("held before: checked; interrupted: false; after: LockLostException, session expired");
		}
	}

	@Test
	void aCompletableFutureIsCompletedWithTheLoss() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(zk, (c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			Probe probe = jobs.probe();
			ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
			CompletableFuture<String> run = jobs.stoppingFuture();
			deleteHeldNode("export");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> run.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining("lost while held: another client deleted its node, so");
			assertThat(probe.work).isCompletedExceptionally();
			eventually().until(() -> registry.heldCount() == 0);
		}
	}

	@Test
	void aMonoIsCancelledAndFailsWithTheLoss() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(zk, (c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			Probe probe = jobs.probe();
			ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
			CompletableFuture<String> run = jobs.stoppingMono().toFuture();
			assertThat(probe.subscribed.await(20, TimeUnit.SECONDS)).isTrue();
			deleteHeldNode("feed");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> run.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining("lost while held: another client deleted its node, so");
			assertThat(probe.cancelled.await(20, TimeUnit.SECONDS)).isTrue();
			eventually().until(() -> registry.heldCount() == 0);
		}
	}

	/** Delete the key's one node, once it is there, as another client would. */
	private static void deleteHeldNode(String key) {
		zk.assertThatKey(key).isHeldByApplication().hasWaiters(0);
		zk.deleteHeldNode(key);
	}

	static final class Probe {

		final CountDownLatch holds = new CountDownLatch(1);

		final CountDownLatch continuingHolds = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final CountDownLatch subscribed = new CountDownLatch(1);

		final CountDownLatch cancelled = new CountDownLatch(1);

		final AtomicReference<@Nullable String> interrupted = new AtomicReference<>();

		final AtomicReference<@Nullable String> continued = new AtomicReference<>();

		final CompletableFuture<String> work = new CompletableFuture<>();

	}

	public static class Jobs {

		private final Probe probe = new Probe();

		public Probe probe() {
			return this.probe;
		}

		@DistributedLock(key = "#key", onLost = OnLost.INTERRUPT)
		public String stopping(String key) {
			this.probe.holds.countDown();
			try {
				Thread.sleep(30_000);
				return "slept to its end";
			}
			catch (InterruptedException ex) {
				this.probe.interrupted.set("interrupted");
				return "interrupted";
			}
		}

		@DistributedLock(key = "'audit'")
		public String continuing() {
			LockContext.current().checkHeld();
			this.probe.continuingHolds.countDown();
			boolean wasInterrupted = false;
			try {
				this.probe.release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				wasInterrupted = true;
			}
			String after;
			try {
				LockContext.current().checkHeld();
				after = "held";
			}
			catch (LockLostException ex) {
				after = ex.getMessage().contains("lost while held: the ZooKeeper session expired, so")
						? "LockLostException, session expired" : "LockLostException: " + ex.getMessage();
			}
			this.probe.continued.set("held before: checked; interrupted: " + wasInterrupted + "; after: " + after);
			return "ran to its end";
		}

		@DistributedLock(key = "'export'", onLost = OnLost.INTERRUPT)
		public CompletableFuture<String> stoppingFuture() {
			return this.probe.work;
		}

		@DistributedLock(key = "'feed'", onLost = OnLost.INTERRUPT)
		public Mono<String> stoppingMono() {
			return Mono.<String>never()
				.doOnSubscribe((subscription) -> this.probe.subscribed.countDown())
				.doOnCancel(this.probe.cancelled::countDown);
		}

	}

}
