package dev.zklock.annotation;

/**
 * What a {@link DistributedLock @DistributedLock} method does when its lock is busy: held
 * by another thread or participant for the whole wait.
 *
 * @author zk-lock
 * @see DistributedLock#onLocked()
 */
public enum OnLocked {

	/**
	 * Throw a {@link dev.zklock.core.LockAcquisitionException}, counted with
	 * {@code outcome="timeout"}.
	 */
	THROW,

	/**
	 * Do not invoke the method, and return nothing: {@code null} for an object or
	 * {@code void}, an empty {@code Optional}, collection, map or array, a
	 * {@code CompletableFuture} completed with {@code null}, an empty {@code Mono} or
	 * {@code Flux}. Logged at DEBUG and counted with {@code outcome="skipped"}: for a
	 * scheduled job that runs on every instance, skipping is normal operation. Not
	 * allowed on a method returning a primitive other than {@code void}, which has no
	 * "nothing" to return.
	 * <p>
	 * While ZooKeeper is unavailable (not connected, or no reply within the wait) the
	 * method is skipped too, rather than thrown at every call: logged at DEBUG, counted
	 * with {@code outcome="skipped_unavailable"}; the outage itself is logged once per
	 * connection state change by {@code dev.zklock.core.SessionTracker}.
	 */
	SKIP

}
