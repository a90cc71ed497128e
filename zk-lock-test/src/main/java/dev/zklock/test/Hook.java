package dev.zklock.test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.test.ZkLockTestKit.ThrowingRunnable;

/**
 * An action of a test waiting for the application to acquire a key, from
 * {@link ZkLockTestKit#onAcquired(String, ThrowingRunnable)}: run once, on the acquiring
 * thread, inside the locked window.
 *
 * @author zk-lock
 */
public final class Hook {

	private final String key;

	private final ThrowingRunnable action;

	private final Duration timeout;

	private final CountDownLatch done = new CountDownLatch(1);

	private volatile @Nullable String firedOn;

	private volatile @Nullable Throwable failure;

	Hook(String key, ThrowingRunnable action, Duration timeout) {
		this.key = key;
		this.action = action;
		this.timeout = timeout;
	}

	/**
	 * The key whose acquisition fires the hook.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Whether the hook's action has run (and returned or failed).
	 * @return whether it has
	 */
	public boolean hasFired() {
		return this.done.getCount() == 0;
	}

	/**
	 * The name of the thread the action ran on: the application's thread that acquired
	 * the key.
	 * @return the thread's name, or null if the hook has not fired
	 */
	public @Nullable String firedOn() {
		return this.firedOn;
	}

	/**
	 * Wait, up to the kit's timeout, for the hook to have fired and its action to have
	 * returned.
	 * @throws AssertionError if it did not fire in time, or its action failed
	 */
	public void awaitFired() {
		try {
			if (!this.done.await(this.timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw neverFired();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the hook on '" + this.key + "'", ex);
		}
		Throwable failure = this.failure;
		if (failure != null) {
			throw new AssertionError("The hook on '" + this.key + "' failed: " + failure.getMessage(), failure);
		}
	}

	void fire() {
		this.firedOn = Thread.currentThread().getName();
		try {
			this.action.run();
		}
		catch (Throwable ex) {
			this.failure = ex;
		}
		finally {
			this.done.countDown();
		}
	}

	/** Why the test fails for this hook; null if it fired and its action returned. */
	@Nullable Throwable failure() {
		if (!hasFired()) {
			return neverFired();
		}
		Throwable failure = this.failure;
		return (failure != null)
				? new AssertionError("The hook on '" + this.key + "' failed: " + failure.getMessage(), failure) : null;
	}

	private AssertionError neverFired() {
		String firedOn = this.firedOn;
		if (firedOn != null) {
			return new AssertionError("The hook on '" + this.key + "' fired on thread '" + firedOn
					+ "' but its action had not returned within " + this.timeout.toMillis() + " ms");
		}
		return new AssertionError("The hook on '" + this.key + "' never fired: the application did not acquire '"
				+ this.key + "' while the test ran (within " + this.timeout.toMillis() + " ms where awaited)");
	}

	@Override
	public String toString() {
		return "Hook[onAcquired '" + this.key + "', " + (hasFired() ? "fired on " + this.firedOn : "pending") + "]";
	}

}
