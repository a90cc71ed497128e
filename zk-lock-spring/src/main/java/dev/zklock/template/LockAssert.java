package dev.zklock.template;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;

import org.springframework.core.NamedThreadLocal;
import org.springframework.util.Assert;

/**
 * Asserts that the current thread holds a zk-lock lock, in code that must only run under
 * one, as ShedLock's {@code LockAssert} does for its locks:
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'stock:' + #sku")
 * public void restock(String sku, int quantity) {
 *     this.stock.add(sku, quantity);
 * }
 *
 * // in StockStore, which must only be called under the SKU's lock
 * public void add(String sku, int quantity) {
 *     LockAssert.assertLocked("stock:" + sku);
 *     ...
 * }
 * </pre>
 *
 * <p>
 * A thread holds a lock while it runs a {@code @DistributedLock} or
 * {@code @DistributedSemaphore} method or a {@link ZkLockTemplate} task, including the
 * locks of the calls it is nested in; that is, where {@link LockContext#find()} sees one.
 * Any hold counts: an exclusive lock, a read or write side, a semaphore permit. A hold
 * whose lease is {@link LeaseState#LOST LOST} (its session expired) does not. Locks taken
 * directly on a {@code ZkLock} from the registry are not seen, nor a lock held for
 * asynchronous work, on the threads the work continues on.
 *
 * <p>
 * In unit tests that call such code without a lock, {@link TestHelper} makes the
 * assertions pass on the test's thread for the length of a {@code try} block.
 *
 * @author zk-lock
 * @see LockContext
 */
public final class LockAssert {

	private LockAssert() {
	}

	/**
	 * Assert that the current thread holds some zk-lock lock.
	 * @throws IllegalStateException if it holds none, saying so
	 */
	public static void assertLocked() {
		if (TestHelper.isPassing()) {
			return;
		}
		List<LockContext> contexts = LockContextHolder.all();
		for (LockContext context : contexts) {
			if (isHeld(context)) {
				return;
			}
		}
		throw new IllegalStateException("This thread holds no zk-lock lock, and the code that called "
				+ "LockAssert.assertLocked() must only run under one: it runs outside every @DistributedLock and "
				+ "@DistributedSemaphore method and ZkLockTemplate task of this thread" + lost(contexts));
	}

	/**
	 * Assert that the current thread holds the lock of a key.
	 * @param key the key, as the lock's key expression gives it (e.g. {@code "stock:42"})
	 * @throws IllegalStateException if it does not hold it, naming the key and the locks
	 * it holds
	 * @throws IllegalArgumentException if the key is blank
	 */
	public static void assertLocked(String key) {
		Assert.hasText(key, "The key must not be blank");
		if (TestHelper.isPassing()) {
			return;
		}
		List<LockContext> contexts = LockContextHolder.all();
		for (LockContext context : contexts) {
			if (context.keys().contains(key) && isHeld(context)) {
				return;
			}
		}
		throw new IllegalStateException("This thread does not hold the zk-lock lock of key '" + key
				+ "', and the code that called LockAssert.assertLocked(\"" + key + "\") must only run under it; "
				+ held(contexts) + lost(contexts));
	}

	private static boolean isHeld(LockContext context) {
		return context.leaseState() != LeaseState.LOST;
	}

	private static String held(List<LockContext> contexts) {
		StringJoiner held = new StringJoiner(", ", "it holds ", "");
		held.setEmptyValue("it holds no zk-lock lock");
		for (LockContext context : contexts) {
			if (isHeld(context)) {
				held.add(describe(context));
			}
		}
		return held.toString();
	}

	private static String lost(List<LockContext> contexts) {
		List<String> lost = new ArrayList<>();
		for (LockContext context : contexts) {
			if (!isHeld(context)) {
				lost.add(describe(context));
			}
		}
		return lost.isEmpty() ? "" : " (it held " + String.join(", ", lost) + ", whose lease is LOST: the "
				+ "session expired or the node was deleted, and another participant may hold it now)";
	}

	private static String describe(LockContext context) {
		StringJoiner keys = new StringJoiner("', '", "'", "'");
		context.keys().forEach(keys::add);
		return keys + " (lock '" + context.name() + "')";
	}

	/**
	 * Makes the assertions of {@link LockAssert} pass in unit tests that call code which
	 * asserts a lock without taking one, on the calling thread only and until the
	 * returned {@link Scope} is closed:
	 *
	 * <pre class="code">
	 * &#064;Test
	 * void addsStock() {
	 *     try (var scope = LockAssert.TestHelper.makeAllAssertsPass()) {
	 *         store.add("sku-1", 3);
	 *     }
	 *     ...
	 * }
	 * </pre>
	 *
	 * <p>
	 * Scoped so that it cannot outlive the test by accident: other threads (other tests
	 * running in parallel, the application's own threads) still assert, and once the
	 * scope is closed this thread does again. Code the test runs on other threads (an
	 * executor, {@code @Async}) is not covered; call it on the test's thread.
	 */
	public static final class TestHelper {

		private static final ThreadLocal<@Nullable Scope> current = new NamedThreadLocal<>("zk-lock asserts passing");

		private TestHelper() {
		}

		/**
		 * Make every assertion pass on the calling thread until the returned scope is
		 * closed; use it in a try-with-resources statement. Scopes nest.
		 * @return the scope to close
		 */
		public static Scope makeAllAssertsPass() {
			Scope scope = new Scope(Thread.currentThread(), current.get());
			current.set(scope);
			return scope;
		}

		static boolean isPassing() {
			return current.get() != null;
		}

		/**
		 * The time during which the assertions pass on one thread; closing it ends it.
		 */
		public static final class Scope implements AutoCloseable {

			private final Thread thread;

			private final @Nullable Scope outer;

			private boolean closed;

			private Scope(Thread thread, @Nullable Scope outer) {
				this.thread = thread;
				this.outer = outer;
			}

			/**
			 * Make the assertions of this thread assert again (or pass, inside an outer
			 * scope). Closing twice does nothing more.
			 * @throws IllegalStateException if called from another thread than the one
			 * that opened the scope, or before an inner scope is closed
			 */
			@Override
			public void close() {
				if (Thread.currentThread() != this.thread) {
					throw new IllegalStateException("A LockAssert.TestHelper scope must be closed on the thread that "
							+ "opened it (" + this.thread.getName() + "), not on " + Thread.currentThread().getName());
				}
				if (this.closed) {
					return;
				}
				if (current.get() != this) {
					throw new IllegalStateException(
							"A LockAssert.TestHelper scope must be closed after the scopes opened inside it");
				}
				this.closed = true;
				if (this.outer != null) {
					current.set(this.outer);
				}
				else {
					current.remove();
				}
			}

		}

	}

}
