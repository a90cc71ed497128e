package dev.zklock.annotation;

/**
 * What happens to the work of a hold whose lease becomes
 * {@link dev.zklock.core.LeaseState#LOST LOST} while it runs: its ZooKeeper session
 * expired, or another client deleted its node, so another participant may hold the lock
 * now.
 *
 * @author zk-lock
 * @see DistributedLock#onLost()
 * @see DistributedSemaphore#onLost()
 * @see dev.zklock.template.LockDefinition#withStopOnLost(boolean)
 */
public enum OnLost {

	/**
	 * The work runs on; the registry's {@link dev.zklock.core.LostLockPolicy} decides
	 * what happens when the hold is released (by default a
	 * {@link dev.zklock.core.LockLostException}). The default.
	 */
	CONTINUE,

	/**
	 * The work is stopped as soon as this JVM hears the lease is lost: the thread running
	 * a synchronous method is interrupted; a {@code CompletionStage} it returned is
	 * completed with a {@link dev.zklock.core.LockLostException}; a {@code Mono} or
	 * {@code Flux} (or a Kotlin coroutine) is cancelled upstream and fails downstream
	 * with that exception. A synchronous method that ends after the interrupt throws the
	 * {@code LockLostException} of its release, with its own exception suppressed in it.
	 * <p>
	 * A hold on an exclusive lock or a read/write side also watches its node (one read
	 * when the work starts), so that a delete by another client is heard; a semaphore's
	 * permit hears only the loss of its session.
	 */
	INTERRUPT

}
