package dev.zklock.template;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.JdkSensitive;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link LockDefinition#withStopOnLost(boolean)} through {@link ZkLockTemplate}: a task
 * whose lease is lost is interrupted, or its stage completed with the loss, and
 * {@link LockContext#checkHeld()} fails once the lease is lost; a task that lets the loss
 * be runs on. The kit deletes the held node, as another client would.
 */
@JdkSensitive
@Timeout(60)
class TemplateOnLostTests {

	/** The 4 s sessions and 20 s waits of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private ZkLockRegistry registry;

	private ZkLockTemplate template;

	@BeforeEach
	void start() {
		this.registry = zk.registry();
		this.template = new ZkLockTemplate(this.registry, ObservationRegistry.NOOP);
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
		this.template.close();
	}

	@Test
	void aTaskThatStopsOnLostIsInterruptedAndItsCheckFails() throws Exception {
		LockDefinition definition = LockDefinition.named("report").withStopOnLost(true);
		assertThat(definition.stopsOnLost()).isTrue();
		assertThat(definition).hasToString(
				"LockDefinition[name=report, mode=EXCLUSIVE, wait=null, holdAtLeast=null, busyOutcome=TIMEOUT, stopOnLost]");
		CountDownLatch holding = new CountDownLatch(1);
		CompletableFuture<String> run = CompletableFuture
			.supplyAsync(() -> this.template.execute(definition, List.of("report"), () -> {
				LockContext.current().checkHeld();
				holding.countDown();
				try {
					Thread.sleep(30_000);
					return "slept to its end";
				}
				catch (InterruptedException ex) {
					try {
						LockContext.current().checkHeld();
						return "interrupted, still held";
					}
					catch (LockLostException lost) {
						return "interrupted, check failed";
					}
				}
			}), this.executor);
		assertThat(holding.await(20, TimeUnit.SECONDS)).isTrue();
		deleteHeldNode("report");
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> run.get(20, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockLostException.class)
			.withMessageContaining("lost while held: another client deleted its node, so");
		assertThat(this.registry.heldCount()).isZero();
	}

	@Test
	void aStageIsCompletedWithTheLossAndTheLockReleased() throws Exception {
		LockDefinition definition = LockDefinition.named("export").withStopOnLost(true);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> stage = this.template.executeAsync(definition, List.of("export"), () -> work);
		deleteHeldNode("export");
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> stage.get(20, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockLostException.class)
			.withMessageContaining("lost while held: another client deleted its node, so");
		assertThat(work).isCompletedExceptionally();
		eventually().until(() -> this.registry.heldCount() == 0);
	}

	@Test
	void aLeaseTellsItsStopOfTheLossOnceAndNotAfterItsRelease() throws Exception {
		LockDefinition definition = LockDefinition.named("feed").withStopOnLost(true);
		ZkLease lease = this.template.acquireLease(definition, List.of("feed"));
		CountDownLatch stopped = new CountDownLatch(1);
		List<LockLostException> losses = new CopyOnWriteArrayList<>();
		this.template.stopOnLost(lease, (loss) -> {
			losses.add(loss);
			stopped.countDown();
		});
		deleteHeldNode("feed");
		assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(losses).singleElement()
			.satisfies((loss) -> assertThat(loss).hasMessageContaining("'feed'")
				.hasMessageContaining("lost while held: another client deleted its node, so"));
		assertThat(lease.state()).isEqualTo(LeaseState.LOST);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	/** Delete the key's one node, once it is there, as another client would. */
	private static void deleteHeldNode(String key) {
		zk.assertThatKey(key).isHeldByApplication().hasWaiters(0);
		zk.deleteHeldNode(key);
	}

}
