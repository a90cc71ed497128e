package dev.zklock.core;

/**
 * What {@link ZkLock#unlock()} does when the lease it releases was {@link LeaseState#LOST
 * lost} while held.
 *
 * @author zk-lock
 */
public enum LostLockPolicy {

	/**
	 * Release the local state, then throw a {@link LockLostException}, so the caller
	 * learns that the critical section may have overlapped with another holder. The
	 * default.
	 */
	THROW,

	/**
	 * Release the local state and log a warning. For callers that fence their writes with
	 * {@link ZkLock#fencingToken()} and need no further signal.
	 */
	WARN

}
