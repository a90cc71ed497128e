package dev.zklock.template;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.ZkLockTestKit;
import dev.zklock.core.LeaseState;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.LockAssert.TestHelper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link LockAssert} on real locks (the annotation's are asserted in
 * {@code SelfInvocationTests}), and its test helper.
 */
@Timeout(60)
class LockAssertTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** The 4 s sessions of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(4));

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
	void withoutALockBothAssertionsSayWhatIsMissing() {
		assertThatIllegalStateException().isThrownBy(LockAssert::assertLocked)
			.withMessage("This thread holds no zk-lock lock, and the code that called LockAssert.assertLocked() must "
					+ "only run under one: it runs outside every @DistributedLock and @DistributedSemaphore method "
					+ "and ZkLockTemplate task of this thread");
		assertThatIllegalStateException().isThrownBy(() -> LockAssert.assertLocked("stock:1"))
			.withMessage("This thread does not hold the zk-lock lock of key 'stock:1', and the code that called "
					+ "LockAssert.assertLocked(\"stock:1\") must only run under it; it holds no zk-lock lock");
		assertThatIllegalArgumentException().isThrownBy(() -> LockAssert.assertLocked(" "));
	}

	@Test
	void aTaskHoldsItsKeysAndThoseOfTheTasksItIsNestedIn() {
		this.template.execute("stock", "stock:1", WAIT, () -> {
			LockAssert.assertLocked();
			LockAssert.assertLocked("stock:1");
			assertThatIllegalStateException().isThrownBy(() -> LockAssert.assertLocked("stock:2"))
				.withMessage("This thread does not hold the zk-lock lock of key 'stock:2', and the code that called "
						+ "LockAssert.assertLocked(\"stock:2\") must only run under it; it holds 'stock:1' "
						+ "(lock 'stock')");
			this.template.execute("orders", List.of("order:7", "order:8"), WAIT, () -> {
				LockAssert.assertLocked("stock:1");
				LockAssert.assertLocked("order:8");
				assertThatIllegalStateException().isThrownBy(() -> LockAssert.assertLocked("stock:2"))
					.withMessageEndingWith("it holds 'order:7', 'order:8' (lock 'orders'), 'stock:1' (lock 'stock')");
				return null;
			});
			return null;
		});
		assertThatIllegalStateException().isThrownBy(() -> LockAssert.assertLocked("stock:1"));
	}

	@Test
	void aLostHoldIsNotHeld() {
		AtomicReference<Throwable> assertion = new AtomicReference<>();
		catchThrowable(() -> this.template.execute("report", "report:1", WAIT, () -> {
			zk.expireSession();
			assertThat(LockContext.current().leaseState()).isEqualTo(LeaseState.LOST);
			assertion.set(catchThrowable(() -> LockAssert.assertLocked("report:1")));
			return null;
		}));
		assertThat(assertion.get()).isInstanceOf(IllegalStateException.class)
			.hasMessageEndingWith("it holds no zk-lock lock (it held 'report:1' (lock 'report'), whose lease is "
					+ "LOST: the session expired or the node was deleted, and another participant may hold it now)");
	}

	@Test
	void theTestHelperMakesAssertionsPassOnItsThreadUntilClosed() throws Exception {
		try (TestHelper.Scope scope = TestHelper.makeAllAssertsPass()) {
			LockAssert.assertLocked();
			LockAssert.assertLocked("stock:1");
			// Not on other threads
			Throwable elsewhere = this.executor.submit(() -> catchThrowable(LockAssert::assertLocked))
				.get(20, TimeUnit.SECONDS);
			assertThat(elsewhere).isInstanceOf(IllegalStateException.class);
			try (TestHelper.Scope inner = TestHelper.makeAllAssertsPass()) {
				LockAssert.assertLocked();
			}
			// Still inside the outer scope
			LockAssert.assertLocked();
		}
		assertThatIllegalStateException().isThrownBy(LockAssert::assertLocked);
		assertThatIllegalStateException().isThrownBy(() -> LockAssert.assertLocked("stock:1"));
	}

	@Test
	void aTestHelperScopeIsClosedWhereAndInTheOrderItWasOpened() throws Exception {
		TestHelper.Scope outer = TestHelper.makeAllAssertsPass();
		TestHelper.Scope inner = TestHelper.makeAllAssertsPass();
		assertThatIllegalStateException().isThrownBy(outer::close)
			.withMessage("A LockAssert.TestHelper scope must be closed after the scopes opened inside it");
		Throwable elsewhere = this.executor.submit(() -> catchThrowable(inner::close)).get(20, TimeUnit.SECONDS);
		assertThat(elsewhere).isInstanceOf(IllegalStateException.class)
			.hasMessageStartingWith("A LockAssert.TestHelper scope must be closed on the thread that opened it");
		inner.close();
		inner.close();
		outer.close();
		assertThatIllegalStateException().isThrownBy(LockAssert::assertLocked);
		assertThatCode(() -> this.template.execute("stock", "stock:1", WAIT, () -> {
			LockAssert.assertLocked("stock:1");
			return null;
		})).doesNotThrowAnyException();
	}

}
