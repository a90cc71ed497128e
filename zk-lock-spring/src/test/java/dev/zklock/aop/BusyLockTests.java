package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.core.TimingSensitive;
import dev.zklock.template.LockContext;
import dev.zklock.annotation.OnLocked;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.test.ZkLockTestKit;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * When the lock is busy: skip, fallback, or throw; minimum holds; waits from
 * configuration; the method's own lock context; and the outcome each is counted with. A
 * busy lock is held by another registry on its own ZooKeeper session, as another JVM
 * would hold it: a {@link ZkLockTestKit#newParticipant() participant} of the kit.
 */
@Timeout(60)
class BusyLockTests {

	/** The 4 s sessions and 20 s waits of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	private AnnotationConfigApplicationContext context;

	private ZkLockRegistry otherJvm;

	private Jobs jobs;

	private final List<String> outcomes = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private void start() throws Exception {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new OutcomeRecorder(this.outcomes));
		this.context = LockedContext.start(zk, (context) -> {
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("test", Map.of("app.wait", "300ms", "app.hold", "1500ms")));
			context.registerBean(ObservationRegistry.class, () -> observations);
			context.register(JobsConfiguration.class);
		});
		this.jobs = this.context.getBean(Jobs.class);
		this.otherJvm = zk.newParticipant();
	}

	private ZkLock holdElsewhere(String key) {
		ZkLock lock = this.otherJvm.obtain(key);
		lock.acquire(Duration.ofSeconds(5));
		return lock;
	}

	@Test
	void skipReturnsNothingOfTheReturnTypeWithoutCallingTheMethod() throws Exception {
		start();
		ZkLock held = holdElsewhere("nightly");
		assertThat(this.jobs.skipVoid()).isNull();
		assertThat(this.jobs.skipOptional()).isEmpty();
		assertThat(this.jobs.skipList()).isEmpty();
		assertThat(this.jobs.skipString()).isNull();
		assertThat(this.jobs.skipFuture().get(5, TimeUnit.SECONDS)).isNull();
		assertThat(this.jobs.skipMono().block(Duration.ofSeconds(10))).isNull();
		assertThat(this.jobs.skipFlux().collectList().block(Duration.ofSeconds(10))).isEmpty();
		assertThat(this.jobs.calls()).isZero();
		assertThat(this.outcomes).hasSize(7).containsOnly("Jobs.skip:skipped");
		held.unlock();
		// One attempt right after another JVM's release may still find its node
		assertThat(this.otherJvm.awaitReleased(Duration.ofSeconds(10))).isTrue();
		assertThat(this.jobs.skipOptional()).contains("ran");
		assertThat(this.jobs.calls()).isOne();
		assertThat(this.outcomes).last().isEqualTo("Jobs.skip:acquired");
	}

	/**
	 * While ZooKeeper is down a skipping method is skipped, at once and without an
	 * exception, and counted apart from a busy skip, so that an outage never passes for
	 * "another instance runs it"; a throwing method still throws, and a fallback still
	 * runs, counted as errors.
	 */
	@TimingSensitive
	@Test
	void aSkipDuringAnOutageIsSkippedAtOnceAndCountedApart() throws Exception {
		start();
		zk.stopServer();
		ZkLockRegistry registry = this.context.getBean(ZkLockRegistry.class);
		eventually().until(() -> registry.connectionStatus().state() == ConnectionState.SUSPENDED);
		long start = System.nanoTime();
		assertThat(this.jobs.skipOptional()).isEmpty();
		assertThat(this.jobs.skipVoid()).isNull();
		assertThat(this.jobs.skipFuture().get(5, TimeUnit.SECONDS)).isNull();
		assertThat(this.jobs.skipMono().block(Duration.ofSeconds(10))).isNull();
		// A zero wait does not wait for a connection: not the connection timeout per call
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
		assertThat(this.jobs.calls()).isZero();
		assertThat(this.outcomes).hasSize(4).containsOnly("Jobs.skip:skipped_unavailable");
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(this.jobs::inner)
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NOT_CONNECTED))
			.withMessageContaining("not connected: the connection is SUSPENDED since");
		assertThat(this.jobs.order("o-2", 1)).isEqualTo("queued o-2 x1 (NOT_CONNECTED)");
		assertThat(this.jobs.calls()).isZero();
		assertThat(this.outcomes).endsWith("Jobs.inner:error", "custom-order:error");
	}

	@Test
	void fallbackIsCalledWithTheArgumentsAndTheFailure() throws Exception {
		start();
		ZkLock held = holdElsewhere("order:o-1");
		assertThat(this.jobs.order("o-1", 3)).isEqualTo("queued o-1 x3 (HELD_REMOTELY)");
		assertThat(this.jobs.orderWithoutFailure("o-1")).isEqualTo("later o-1");
		assertThat(this.jobs.orderAsync("o-1").get(5, TimeUnit.SECONDS)).isEqualTo("async fallback o-1");
		assertThat(this.jobs.orderMono("o-1").block(Duration.ofSeconds(10))).isEqualTo("mono fallback o-1");
		assertThat(this.jobs.calls()).isZero();
		assertThat(this.outcomes).containsExactly("custom-order:fallback", "Jobs.orderWithoutFailure:fallback",
				"Jobs.orderAsync:fallback", "Jobs.orderMono:fallback");
		held.unlock();
		// One attempt right after another JVM's release may still find its node
		assertThat(this.otherJvm.awaitReleased(Duration.ofSeconds(10))).isTrue();
		assertThat(this.jobs.order("o-1", 3)).isEqualTo("ordered o-1 x3");
	}

	@Test
	void aLockFailureInsideTheMethodIsTheMethodsOwnNotAReasonToFallBack() throws Exception {
		start();
		ZkLock held = holdElsewhere("inner");
		// The outer lock is acquired; the method's own inner call fails, and that failure
		// is thrown
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> this.jobs.outer("x"))
			.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("inner"));
		assertThat(this.jobs.calls()).isOne();
		held.unlock();
	}

	@TimingSensitive
	@Test
	void holdAtLeastKeepsTheLockAfterTheMethodReturnsThenReleasesIt() throws Exception {
		start();
		long start = System.nanoTime();
		assertThat(this.jobs.scheduled()).isEqualTo("ran");
		long returned = System.nanoTime();
		// The method returned at once; the lock stays (app.hold = 1500ms after it was
		// acquired)
		zk.assertThatKey("report").isHeldByApplication().hasWaiters(0);
		assertThat(this.otherJvm.obtain("report").tryLock()).isFalse();
		// A second call while it is held is busy: skipped, not reentrant, not run
		assertThat(this.jobs.scheduled()).isNull();
		assertThat(this.jobs.calls()).isOne();
		zk.assertThatKey("report").isNotHeld();
		long released = System.nanoTime();
		assertThat(Duration.ofNanos(released - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
		assertThat(Duration.ofNanos(returned - start)).isLessThan(Duration.ofMillis(1500));
		assertThat(this.outcomes).containsExactly("Jobs.scheduled:acquired", "Jobs.scheduled:skipped");
		ZkLock lock = this.otherJvm.obtain("report");
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	void holdAtLeastIsNotReentrant() throws Exception {
		start();
		assertThat(this.jobs.scheduledThenAgain()).isEqualTo("outer, inner skipped");
	}

	@Test
	void holdAtLeastShorterThanTheWorkReleasesWhenTheWorkEnds() throws Exception {
		start();
		assertThat(this.jobs.longerThanItsMinimum()).isEqualTo("done");
		zk.assertThatKey("long").isNotHeld();
	}

	@TimingSensitive
	@Test
	void waitAtMostComesFromAPlaceholder() throws Exception {
		start();
		ZkLock held = holdElsewhere("configured");
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(this.jobs::configuredWait)
			.satisfies((ex) -> assertThat(ex.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(300))
				.isLessThan(Duration.ofSeconds(5)));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(this.outcomes).containsExactly("Jobs.configuredWait:timeout");
		held.unlock();
	}

	@Test
	void theMethodSeesItsOwnLock() throws Exception {
		start();
		ZkLockRegistry registry = this.context.getBean(ZkLockRegistry.class);
		Jobs.Seen seen = this.jobs.context("sku-9",
				() -> registry.localLocks()
					.stream()
					.filter((info) -> info.key().equals("stock:sku-9"))
					.map(LocalLockInfo::fencingToken)
					.findFirst()
					.orElseThrow());
		assertThat(seen.name()).isEqualTo("Jobs.context");
		assertThat(seen.keys()).containsExactly("stock:sku-9");
		assertThat(seen.token()).isPositive().isEqualTo(seen.listedToken());
		assertThat(seen.state()).isEqualTo(LeaseState.HELD);
		assertThat(seen.innerName()).isEqualTo("inner-name");
		assertThat(seen.restoredName()).isEqualTo("Jobs.context");
		assertThat(LockContext.find()).isNull();
		assertThatIllegalStateException().isThrownBy(LockContext::current).withMessageContaining("No lock context");
	}

	@Test
	void severalKeysHaveATokenEach() throws Exception {
		start();
		Map<String, Long> tokens = this.jobs.transfer("a", "b");
		assertThat(tokens).containsOnlyKeys("account:a", "account:b");
		assertThat(tokens.values()).allSatisfy((token) -> assertThat(token).isPositive());
		assertThat(tokens.get("account:a")).isNotEqualTo(tokens.get("account:b"));
	}

	@Test
	void asyncAndReactiveMethodsSeeTheirLockWhileTheyAreCalled() throws Exception {
		start();
		assertThat(this.jobs.contextAsync().get(5, TimeUnit.SECONDS)).isEqualTo("async:Jobs.contextAsync");
		assertThat(this.jobs.contextMono().block(Duration.ofSeconds(10))).isEqualTo("mono:Jobs.contextMono");
	}

	@Test
	void skipOnAQueueReturnsAnEmptyQueue() throws Exception {
		start();
		ZkLock held = holdElsewhere("nightly");
		assertThat(this.jobs.skipQueue()).isEmpty();
		assertThat(this.jobs.calls()).isZero();
		held.unlock();
	}

	@TimingSensitive
	@Test
	void aReactiveWaitCancelledWithAMinimumHoldGivesTheLockBackAtOnce() throws Exception {
		start();
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		reactor.core.publisher.Hooks.onErrorDropped(dropped::add);
		try {
			ZkLock held = holdElsewhere("rx-hold");
			reactor.core.Disposable subscription = this.jobs.reactiveWithMinimum().subscribe();
			zk.assertThatKey("rx-hold").isHeldBy(this.otherJvm).hasWaiters(1);
			subscription.dispose();
			held.unlock();
			long unlocked = System.nanoTime();
			// The wait then succeeds for nobody: the lease goes back at once, not after
			// its 10 s
			zk.assertThatKey("rx-hold").isNotHeld();
			assertThat(Duration.ofNanos(System.nanoTime() - unlocked)).isLessThan(Duration.ofSeconds(8));
			assertThat(this.jobs.calls()).isZero();
			// A wait that fails after its subscriber left is not an error anyone must
			// hear of
			ZkLock again = holdElsewhere("rx-drop");
			reactor.core.Disposable failing = this.jobs.reactiveShortWait().subscribe();
			zk.assertThatKey("rx-drop").isHeldBy(this.otherJvm).hasWaiters(1);
			failing.dispose();
			// The wait ends (300 ms) with its observation, whatever the outcome; only
			// then
			// could its failure have been dropped
			eventually().until(() -> this.outcomes.stream().anyMatch((o) -> o.startsWith("Jobs.reactiveShortWait:")));
			assertThat(this.outcomes).contains("Jobs.reactiveShortWait:timeout");
			assertThat(dropped).isEmpty();
			again.unlock();
		}
		finally {
			reactor.core.publisher.Hooks.resetOnErrorDropped();
		}
	}

	@Test
	void aPartlyReentrantHoldKeepsTheOuterName() throws Exception {
		start();
		ZkLockTemplate template = this.context.getBean(ZkLockTemplate.class);
		List<Map<String, String>> names = new ArrayList<>();
		template.execute("outer", List.of("p"), null, () -> {
			template.execute("inner", List.of("p", "r"), null, () -> names.add(template.holderNames()));
			names.add(template.holderNames());
			return null;
		});
		assertThat(names.get(0)).containsEntry("p", "outer").containsEntry("r", "inner");
		assertThat(names.get(1)).containsOnly(Map.entry("p", "outer"));
		assertThat(template.holderNames()).isEmpty();
	}

	/**
	 * Records {@code name:outcome} of every finished wait.
	 */
	private record OutcomeRecorder(List<String> outcomes) implements ObservationHandler<Observation.Context> {

		@Override
		public boolean supportsContext(Observation.Context context) {
			return ZkLockTemplate.ACQUIRE_OBSERVATION.equals(context.getName());
		}

		@Override
		public void onStop(Observation.Context context) {
			this.outcomes.add(context.getLowCardinalityKeyValue("lock.name").getValue() + ":"
					+ context.getLowCardinalityKeyValue("outcome").getValue());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		ZkLockTemplate zkLockTemplate(ZkLockRegistry registry, ObservationRegistry observations) {
			return new ZkLockTemplate(registry, observations);
		}

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	public static class Jobs {

		private final AtomicInteger calls = new AtomicInteger();

		private Jobs self;

		int calls() {
			return this.calls.get();
		}

		@org.springframework.beans.factory.annotation.Autowired
		void setSelf(@org.springframework.context.annotation.Lazy Jobs self) {
			this.self = self;
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public java.util.Queue<String> skipQueue() {
			this.calls.incrementAndGet();
			return new java.util.ArrayDeque<>(List.of("ran"));
		}

		@DistributedLock(key = "'rx-hold'", waitAtMost = "20s", holdAtLeast = "10s")
		public Mono<String> reactiveWithMinimum() {
			return Mono.fromCallable(() -> {
				this.calls.incrementAndGet();
				return "rx";
			});
		}

		@DistributedLock(key = "'rx-drop'", waitMs = 300)
		public Mono<String> reactiveShortWait() {
			this.calls.incrementAndGet();
			return Mono.just("drop");
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public Void skipVoid() {
			this.calls.incrementAndGet();
			return null;
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitAtMost = "0s", onLocked = OnLocked.SKIP)
		public Optional<String> skipOptional() {
			this.calls.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public List<String> skipList() {
			this.calls.incrementAndGet();
			return List.of("ran");
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public String skipString() {
			this.calls.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public CompletableFuture<String> skipFuture() {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public Mono<String> skipMono() {
			this.calls.incrementAndGet();
			return Mono.just("ran");
		}

		@DistributedLock(key = "'nightly'", name = "Jobs.skip", waitMs = 0, onLocked = OnLocked.SKIP)
		public Flux<String> skipFlux() {
			this.calls.incrementAndGet();
			return Flux.just("ran");
		}

		@DistributedLock(key = "'order:' + #id", name = "custom-order", waitMs = 0, fallback = "queueOrder")
		public String order(String id, int quantity) {
			this.calls.incrementAndGet();
			return "ordered " + id + " x" + quantity;
		}

		private String queueOrder(String id, int quantity, LockAcquisitionException failure) {
			return "queued " + id + " x" + quantity + " (" + failure.getReason() + ")";
		}

		@DistributedLock(key = "'order:' + #id", waitMs = 0, fallback = "later")
		public String orderWithoutFailure(String id) {
			this.calls.incrementAndGet();
			return "now " + id;
		}

		String later(String id) {
			return "later " + id;
		}

		@DistributedLock(key = "'order:' + #id", waitMs = 0, fallback = "asyncFallback")
		public CompletableFuture<String> orderAsync(String id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture("async " + id);
		}

		CompletableFuture<String> asyncFallback(String id) {
			return CompletableFuture.completedFuture("async fallback " + id);
		}

		@DistributedLock(key = "'order:' + #id", waitMs = 0, fallback = "monoFallback")
		public Mono<String> orderMono(String id) {
			this.calls.incrementAndGet();
			return Mono.just("mono " + id);
		}

		Mono<String> monoFallback(String id, Exception failure) {
			return Mono.just("mono fallback " + id);
		}

		@DistributedLock(key = "'outer:' + #id", waitMs = 0, fallback = "outerFallback")
		public String outer(String id) {
			this.calls.incrementAndGet();
			return this.self.inner();
		}

		String outerFallback(String id) {
			return "outer fallback";
		}

		@DistributedLock(key = "'inner'", waitMs = 0)
		public String inner() {
			return "inner";
		}

		@DistributedLock(key = "'report'", waitMs = 0, onLocked = OnLocked.SKIP, holdAtLeast = "${app.hold}")
		public String scheduled() {
			this.calls.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "'report-nested'", waitMs = 0, onLocked = OnLocked.SKIP, holdAtLeast = "1s")
		public String scheduledThenAgain() {
			String inner = this.self.scheduledAgain();
			return "outer, inner " + ((inner != null) ? inner : "skipped");
		}

		@DistributedLock(key = "'report-nested'", waitMs = 0, onLocked = OnLocked.SKIP, holdAtLeast = "1s")
		public String scheduledAgain() {
			return "ran";
		}

		@DistributedLock(key = "'long'", holdAtLeast = "PT0.05S")
		public String longerThanItsMinimum() throws InterruptedException {
			Thread.sleep(200);
			return "done";
		}

		@DistributedLock(key = "'configured'", waitAtMost = "${app.wait}")
		public void configuredWait() {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "'stock:' + #sku")
		public Seen context(String sku, java.util.function.Supplier<Long> listed) {
			LockContext context = LockContext.current();
			String inner = this.self.innerContext();
			return new Seen(context.name(), context.keys(), context.fencingToken(), listed.get(), context.leaseState(),
					inner, LockContext.current().name());
		}

		@DistributedLock(key = "'other'", name = "inner-name")
		public String innerContext() {
			return LockContext.current().name();
		}

		@DistributedLock(key = "{'account:' + #from, 'account:' + #to}")
		public Map<String, Long> transfer(String from, String to) {
			LockContext context = LockContext.current();
			Map<String, Long> tokens = new java.util.HashMap<>();
			for (String key : context.keys()) {
				tokens.put(key, context.fencingToken(key));
			}
			assertThatIllegalStateException().isThrownBy(context::fencingToken);
			return tokens;
		}

		@DistributedLock(key = "'ctx-async'")
		public CompletableFuture<String> contextAsync() {
			String name = LockContext.current().name();
			return CompletableFuture.supplyAsync(() -> "async:" + name, TestThreads.EXECUTOR);
		}

		@DistributedLock(key = "'ctx-mono'")
		public Mono<String> contextMono() {
			String name = LockContext.current().name();
			return Mono.just("mono:" + name);
		}

		record Seen(String name, List<String> keys, long token, long listedToken, LeaseState state, String innerName,
				String restoredName) {
		}

	}

}
