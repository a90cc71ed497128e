package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.JdkSensitive;
import dev.zklock.core.TimingSensitive;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A method that returns a {@code Mono} or {@code Flux} runs inside its lock on each
 * subscription: the lock is acquired without blocking the subscriber, the method is
 * invoked only then, and the lock is released when the stream completes, fails or is
 * cancelled.
 */
@JdkSensitive
@Timeout(60)
class ReactiveLockingTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private AnnotationConfigApplicationContext context;

	private Streams streams;

	private ZkLockRegistry otherJvm;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private void start() throws Exception {
		this.context = LockedContext.start(this.zk, (context) -> context.registerBean(Streams.class));
		this.streams = this.context.getBean(Streams.class);
		this.otherJvm = this.zk.newRegistry();
	}

	@Test
	void nothingHappensBeforeSubscription() throws Exception {
		start();
		Mono<String> mono = this.streams.value("lazy");
		assertThat(this.streams.invocations()).hasValue(0);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:lazy")).isEmpty());
		assertThat(mono.block(Duration.ofSeconds(10))).isEqualTo("value");
		assertThat(this.streams.invocations()).hasValue(1);
		// A second subscription runs the method again, locked again
		assertThat(mono.block(Duration.ofSeconds(10))).isEqualTo("value");
		assertThat(this.streams.invocations()).hasValue(2);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:lazy")).isEmpty());
	}

	@Test
	void theMethodRunsInsideTheLock() throws Exception {
		start();
		assertThat(this.streams.heldWhenInvoked("inside").block(Duration.ofSeconds(10))).isTrue();
	}

	@Test
	void lockIsHeldUntilTheFluxCompletes() throws Exception {
		start();
		Sinks.Many<String> sink = Sinks.many().unicast().onBackpressureBuffer();
		List<String> received = new CopyOnWriteArrayList<>();
		Disposable subscription = this.streams.items("flux", sink.asFlux()).subscribe(received::add);
		eventually().until(() -> this.zk.children("/locks/stream:flux").size() == 1);
		sink.tryEmitNext("a");
		eventually().until(() -> received.contains("a"));
		assertThat(this.otherJvm.obtain("stream:flux").tryLock()).isFalse();
		sink.tryEmitComplete();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:flux")).isEmpty());
		assertThat(subscription.isDisposed()).isTrue();
	}

	@Test
	void lockIsReleasedWhenTheStreamFailsOrIsCancelled() throws Exception {
		start();
		assertThatIllegalStateException()
			.isThrownBy(() -> this.streams.items("failing", Flux.error(new IllegalStateException("boom")))
				.blockLast(Duration.ofSeconds(10)));
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:failing")).isEmpty());
		Disposable cancelled = this.streams.items("cancelled", Flux.never()).subscribe();
		eventually().until(() -> this.zk.children("/locks/stream:cancelled").size() == 1);
		cancelled.dispose();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:cancelled")).isEmpty());
	}

	@TimingSensitive
	@Test
	void subscribingDoesNotBlockWhileAnotherHolderHasTheLock() throws Exception {
		start();
		ZkLock held = this.otherJvm.obtain("stream:busy");
		held.lock();
		Mono<String> mono = this.streams.value("busy");
		List<String> received = new CopyOnWriteArrayList<>();
		long start = System.nanoTime();
		mono.subscribe(received::add);
		// subscribe() returned at once; the acquisition waits elsewhere
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
		assertThat(received).isEmpty();
		assertThat(this.streams.invocations()).hasValue(0);
		held.unlock();
		eventually().until(() -> received.contains("value"));
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:busy")).isEmpty());
	}

	@Test
	void aSubscriberThatGivesUpWhileTheLockIsAwaitedLeavesNothingHeld() throws Exception {
		start();
		ZkLock held = this.otherJvm.obtain("stream:impatient");
		held.lock();
		try {
			assertThatExceptionOfType(Exception.class)
				.isThrownBy(() -> this.streams.value("impatient").timeout(Duration.ofMillis(300)).block())
				.withRootCauseInstanceOf(java.util.concurrent.TimeoutException.class);
		}
		finally {
			// The acquisition still waits; it gets the lock now, after its subscriber is
			// gone
			held.unlock();
		}
		ZkLockRegistry registry = this.context.getBean(ZkLockRegistry.class);
		eventually().untilAsserted(() -> {
			assertThat(registry.heldCount()).isZero();
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stream:impatient")).isEmpty());
		});
		assertThat(this.streams.invocations()).hasValue(0);
		assertThat(this.otherJvm.obtain("stream:impatient").tryLock(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
	}

	public static class Streams {

		private final AtomicInteger invocations = new AtomicInteger();

		private final ZkLockRegistry registry;

		public Streams(ZkLockRegistry registry) {
			this.registry = registry;
		}

		// Through a method: the test holds the proxy, whose own fields are not the bean's
		public AtomicInteger invocations() {
			return this.invocations;
		}

		@DistributedLock(key = "'stream:' + #name", waitMs = 10_000)
		public Mono<String> value(String name) {
			this.invocations.incrementAndGet();
			return Mono.just("value");
		}

		@DistributedLock(key = "'stream:' + #name")
		public Mono<Boolean> heldWhenInvoked(String name) {
			// The lease holds the lock, not this thread: look from ZooKeeper's side
			return Mono.just(!this.registry.localLocks().isEmpty() && this.registry.localLocks().get(0).held());
		}

		@DistributedLock(key = "'stream:' + #name")
		public Flux<String> items(String name, Flux<String> source) {
			return source;
		}

	}

}
