package dev.zklock.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * Waits for the replies of asynchronous ZooKeeper requests, and finds the failure that a
 * future wraps.
 */
public final class Futures {

	private Futures() {
	}

	/**
	 * Wait for a reply up to a timeout, and throw the request's own failure, not its
	 * wrapper: ZooKeeper's {@code KeeperException}, for one.
	 * @param reply the reply to wait for
	 * @param timeoutNanos the longest time to wait; zero or less waits not at all
	 * @return the reply's result
	 * @throws TimeoutException if the reply did not come in time
	 * @throws InterruptedException if interrupted while waiting
	 * @throws Exception the request's failure
	 */
	public static <T extends @Nullable Object> T await(CompletableFuture<T> reply, long timeoutNanos) throws Exception {
		try {
			return reply.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = unwrap(ex);
			throw (cause instanceof Exception exception) ? exception : ex;
		}
	}

	/**
	 * The failure inside the wrappers of a future's failure.
	 */
	static Throwable unwrap(Throwable ex) {
		while (ex instanceof CompletionException || ex instanceof ExecutionException) {
			if (ex.getCause() == null) {
				break;
			}
			ex = ex.getCause();
		}
		return ex;
	}

}
