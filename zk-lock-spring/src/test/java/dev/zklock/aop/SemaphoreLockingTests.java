package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.template.LockContext;
import dev.zklock.annotation.OnLocked;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.ZkSemaphore;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code @DistributedSemaphore}: at most {@code permits} calls run at once across
 * applications on their own ZooKeeper sessions (as JVMs); a full semaphore throws, skips
 * or falls back as the annotation says; a permit follows a method's asynchronous work
 * until it ends. Every wait is bounded, and every assertion runs on the test thread.
 */
@Timeout(90)
class SemaphoreLockingTests {

	private static final long WAIT_SECONDS = 20;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

	private final List<String> outcomes = new CopyOnWriteArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private ZkLockRegistry otherJvm;

	@AfterEach
	void close() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		this.contexts.forEach(AnnotationConfigApplicationContext::close);
	}

	private AnnotationConfigApplicationContext start() throws Exception {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new KindRecorder(this.outcomes));
		AnnotationConfigApplicationContext context = LockedContext.start(this.zk, (c) -> {
			c.registerBean(ObservationRegistry.class, () -> observations);
			c.registerBean(ZkLockTemplate.class,
					() -> new ZkLockTemplate(c.getBean(ZkLockRegistry.class), observations));
			c.registerBean(Renderer.class);
		});
		this.contexts.add(context);
		if (this.otherJvm == null) {
			this.otherJvm = this.zk.newRegistry();
		}
		return context;
	}

	@Test
	void atMostTwoOfFiveConcurrentCallsRunAtOnceAcrossJvms() throws Exception {
		List<Renderer> jvms = List.of(start().getBean(Renderer.class), start().getBean(Renderer.class));
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		CountDownLatch ready = new CountDownLatch(5);
		CountDownLatch firstTwo = new CountDownLatch(2);
		List<Future<String>> calls = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			Renderer renderer = jvms.get(i % 2);
			String document = "d-" + i;
			calls.add(this.executor.submit(() -> {
				ready.countDown();
				ready.await(WAIT_SECONDS, TimeUnit.SECONDS);
				return renderer.render(document, () -> {
					most.accumulateAndGet(inside.incrementAndGet(), Math::max);
					// The first two stay until both are in, however slow the machine: two
					// run at once
					firstTwo.countDown();
					await(firstTwo);
					// and long enough for the other three to try to join them
					sleep(300);
					inside.decrementAndGet();
				});
			}));
		}
		for (int i = 0; i < 5; i++) {
			assertThat(calls.get(i).get(60, TimeUnit.SECONDS)).isEqualTo("rendered d-" + i);
		}
		assertThat(most.get()).isEqualTo(2);
		assertThat(this.outcomes).hasSize(5).containsOnly("Renderer.render:semaphore:acquired");
		eventually().untilAsserted(
				() -> assertThat(this.otherJvm.obtainSemaphore("pdf-render", 2).availablePermits()).isEqualTo(2));
	}

	@Test
	void aFullSemaphoreSkipsThrowsOrFallsBack() throws Exception {
		Renderer renderer = start().getBean(Renderer.class);
		ZkSemaphore semaphore = this.otherJvm.obtainSemaphore("pdf-render", 2);
		ZkLease first = semaphore.acquire(Duration.ofSeconds(10));
		ZkLease second = semaphore.acquire(Duration.ofSeconds(10));
		assertThat(renderer.renderIfFree("d-1")).isNull();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> renderer.tryRender("d-1"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.HELD_REMOTELY));
		assertThat(renderer.renderOrQueue("d-1")).isEqualTo("queued d-1 (HELD_REMOTELY)");
		assertThat(renderer.calls()).hasValue(0);
		assertThat(this.outcomes).containsExactly("Renderer.renderIfFree:semaphore:skipped",
				"Renderer.tryRender:semaphore:timeout", "Renderer.renderOrQueue:semaphore:fallback");
		second.release();
		assertThat(renderer.renderIfFree("d-1")).isEqualTo("rendered d-1");
		assertThat(renderer.calls()).hasValue(1);
		first.release();
	}

	@Test
	void thePermitIsHeldWhileTheMethodRunsAndShownAsASemaphore() throws Exception {
		AnnotationConfigApplicationContext context = start();
		Renderer renderer = context.getBean(Renderer.class);
		ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
		String seen = renderer.render("d-2", () -> {
			assertThat(LockContext.current().key()).isEqualTo("pdf-render");
			assertThat(LockContext.current().fencingToken()).isPositive();
			assertThat(registry.localLocks()).filteredOn((info) -> info.key().equals("pdf-render"))
				.singleElement()
				.satisfies((info) -> {
					assertThat(info.kind()).isEqualTo(LockKind.SEMAPHORE);
					assertThat(info.holds()).isEqualTo(1);
					assertThat(info.permits()).isEqualTo(2);
				});
		});
		assertThat(seen).isEqualTo("rendered d-2");
	}

	@Test
	void aCompletionStageKeepsItsPermitUntilItCompletes() throws Exception {
		Renderer renderer = start().getBean(Renderer.class);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = renderer.renderLater(work);
		// The method has returned; its permit stays taken until the work ends
		ZkSemaphore single = this.otherJvm.obtainSemaphore("one-at-a-time", 1);
		assertThat(single.tryAcquire(Duration.ZERO)).isNull();
		work.complete("done");
		assertThat(result.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("done");
		ZkLease lease = eventually().until(() -> single.tryAcquire(Duration.ZERO), (acquired) -> acquired != null);
		lease.release();
	}

	@Test
	void aMonoTakesItsPermitOnSubscriptionAndGivesItBackAtTheEnd() throws Exception {
		Renderer renderer = start().getBean(Renderer.class);
		ZkSemaphore single = this.otherJvm.obtainSemaphore("one-at-a-time", 1);
		Mono<String> mono = renderer.renderReactive("d-3", () -> {
			assertThat(single.tryAcquire(Duration.ZERO)).isNull();
		});
		// Nothing is taken before subscription
		ZkLease before = single.tryAcquire(Duration.ZERO);
		assertThat(before).isNotNull();
		before.release();
		assertThat(mono.block(Duration.ofSeconds(WAIT_SECONDS))).isEqualTo("rendered d-3");
		ZkLease after = eventually().until(() -> single.tryAcquire(Duration.ZERO), (acquired) -> acquired != null);
		after.release();
	}

	@Test
	void aKeyExpressionGivingSeveralKeysFailsTheCallBeforeTheMethodRuns() throws Exception {
		Renderer renderer = start().getBean(Renderer.class);
		assertThatIllegalArgumentException().isThrownBy(() -> renderer.renderEach(List.of("a", "b")))
			.withMessageContaining("@DistributedSemaphore key expression \"#queues\" on " + Renderer.class.getName()
					+ ".renderEach(List)")
			.withMessageContaining("a semaphore's permit is taken on one key");
		assertThat(renderer.calls()).hasValue(0);
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Two calls never ran at once");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Records {@code name:kind:outcome} of every finished wait.
	 */
	private record KindRecorder(List<String> outcomes) implements ObservationHandler<Observation.Context> {

		@Override
		public boolean supportsContext(Observation.Context context) {
			return ZkLockTemplate.ACQUIRE_OBSERVATION.equals(context.getName());
		}

		@Override
		public void onStop(Observation.Context context) {
			this.outcomes.add(context.getLowCardinalityKeyValue("lock.name").getValue() + ":"
					+ context.getLowCardinalityKeyValue("kind").getValue() + ":"
					+ context.getLowCardinalityKeyValue("outcome").getValue());
		}

	}

	public static class Renderer {

		private final AtomicInteger calls = new AtomicInteger();

		AtomicInteger calls() {
			return this.calls;
		}

		@DistributedSemaphore(key = "'pdf-render'", permits = 2, waitAtMost = "30s")
		public String render(String document, Runnable inside) {
			this.calls.incrementAndGet();
			inside.run();
			return "rendered " + document;
		}

		@DistributedSemaphore(key = "'pdf-render'", permits = 2, waitMs = 0, onLocked = OnLocked.SKIP)
		public String renderIfFree(String document) {
			this.calls.incrementAndGet();
			return "rendered " + document;
		}

		@DistributedSemaphore(key = "'pdf-render'", permits = 2, waitMs = 200)
		public String tryRender(String document) {
			this.calls.incrementAndGet();
			return "rendered " + document;
		}

		@DistributedSemaphore(key = "'pdf-render'", permits = 2, waitMs = 0, fallback = "queue")
		public String renderOrQueue(String document) {
			this.calls.incrementAndGet();
			return "rendered " + document;
		}

		String queue(String document, LockAcquisitionException ex) {
			return "queued " + document + " (" + ex.getReason() + ")";
		}

		@DistributedSemaphore(key = "'one-at-a-time'", permits = 1, waitAtMost = "10s")
		public CompletableFuture<String> renderLater(CompletableFuture<String> work) {
			return work;
		}

		@DistributedSemaphore(key = "'one-at-a-time'", permits = 1, waitAtMost = "10s")
		public Mono<String> renderReactive(String document, Runnable inside) {
			return Mono.fromCallable(() -> {
				inside.run();
				return "rendered " + document;
			});
		}

		@DistributedSemaphore(key = "#queues", permits = 3)
		public String renderEach(List<String> queues) {
			this.calls.incrementAndGet();
			return "rendered " + queues;
		}

	}

}
