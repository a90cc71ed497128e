package dev.zklock.template;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a {@link LockDefinition} takes, through {@link ZkLockTemplate}: a read or write
 * side only for work on the calling thread and without a minimum hold; a semaphore's
 * permit on one key, as a lease; and the name of a key that several readers hold for as
 * long as any of them does.
 */
@Timeout(60)
class TemplateRecipesTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private ZkLockRegistry registry;

	private ZkLockTemplate template;

	@BeforeEach
	void start() throws Exception {
		this.registry = this.zk.newRegistry();
		this.template = new ZkLockTemplate(this.registry, ObservationRegistry.NOOP);
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
		this.template.close();
		this.registry.close();
	}

	@Test
	void definitionsThatContradictThemselvesAreRefused() {
		LockDefinition named = LockDefinition.named("catalog");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> named.withMode(LockMode.READ).withHoldAtLeast(Duration.ofSeconds(1)))
			.withMessageContaining("takes the READ side of a read/write lock");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> named.withHoldAtLeast(Duration.ofSeconds(1)).withMode(LockMode.WRITE))
			.withMessageContaining("takes the WRITE side of a read/write lock");
		assertThatIllegalArgumentException().isThrownBy(() -> named.withPermits(0))
			.withMessageContaining("needs at least 1 permit");
		assertThatIllegalArgumentException().isThrownBy(() -> named.withPermits(2).withMode(LockMode.READ));
		assertThatIllegalArgumentException().isThrownBy(() -> named.withMode(LockMode.WRITE).withPermits(2));
		assertThat(named.withMode(LockMode.READ).kind()).isEqualTo("read");
		assertThat(named.withPermits(3).kind()).isEqualTo("semaphore");
		assertThat(named.kind()).isEqualTo("exclusive");
		assertThat(named.withPermits(3).withMode(LockMode.EXCLUSIVE).permits()).isEqualTo(3);
	}

	@Test
	void aSideCannotBeHeldForWorkThatOutlivesTheCall() {
		LockDefinition reading = LockDefinition.named("catalog").withMode(LockMode.READ);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.executeAsync(reading, List.of("c"),
					() -> CompletableFuture.completedFuture("never")))
			.withMessageContaining("belongs to the thread that took it");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.acquireLease(reading.withMode(LockMode.WRITE), List.of("c")));
		assertThat(this.registry.heldCount()).isZero();
		assertThat(this.template.execute(reading, List.of("c"), () -> LockContext.current().fencingToken()))
			.isPositive();
	}

	@Test
	void aPermitIsALeaseOnOneKey() throws Exception {
		LockDefinition single = LockDefinition.named("render").withPermits(1).withWaitAtMost(Duration.ZERO);
		// A wait, not one attempt: a first use makes the semaphore's nodes, which a
		// loaded machine may not do within one attempt's connection timeout
		ZkLease lease = this.template.acquireLease(single.withWaitAtMost(Duration.ofSeconds(10)), List.of("render"));
		try (ZkLockRegistry otherJvm = this.zk.newRegistry()) {
			// Any failure will do, a busy permit or a slow reply; a permit granted would
			// not
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> otherJvm.obtainSemaphore("render", 1).acquire(Duration.ofMillis(500)));
			// Not reentrant: this thread asking again finds the only permit taken
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.template.execute(single, List.of("render"), () -> "never"));
			CompletableFuture<Void> released = CompletableFuture.runAsync(lease::release, this.executor);
			released.get(20, TimeUnit.SECONDS);
			assertThat(this.template.execute(single.withWaitAtMost(Duration.ofSeconds(10)), List.of("render"),
					() -> LockContext.current().key()))
				.isEqualTo("render");
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.execute(single, List.of("a", "b"), () -> "never"))
			.withMessageContaining("takes a permit of one key, but was given [a, b]");
	}

	@Test
	void aKeyReadBySeveralIsNamedForAsLongAsAnyOfThemHoldsIt() throws Exception {
		CountDownLatch bothInside = new CountDownLatch(2);
		CountDownLatch firstLeaves = new CountDownLatch(1);
		CountDownLatch secondLeaves = new CountDownLatch(1);
		CountDownLatch firstInside = new CountDownLatch(1);
		Future<?> first = this.executor.submit(() -> read("first", () -> {
			firstInside.countDown();
			bothInside.countDown();
			await(firstLeaves);
		}));
		assertThat(firstInside.await(20, TimeUnit.SECONDS)).isTrue();
		Future<?> second = this.executor.submit(() -> read("second", () -> {
			bothInside.countDown();
			await(secondLeaves);
		}));
		assertThat(bothInside.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(this.template.holderNames()).containsExactly(java.util.Map.entry("catalog", "first"));
		firstLeaves.countDown();
		first.get(20, TimeUnit.SECONDS);
		assertThat(this.template.holderNames()).containsExactly(java.util.Map.entry("catalog", "second"));
		secondLeaves.countDown();
		second.get(20, TimeUnit.SECONDS);
		assertThat(this.template.holderNames()).isEmpty();
	}

	private void read(String name, Runnable inside) {
		this.template.execute(LockDefinition.named(name).withMode(LockMode.READ).withWaitAtMost(Duration.ofSeconds(20)),
				List.of("catalog"), () -> {
					inside.run();
					return null;
				});
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not released in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
