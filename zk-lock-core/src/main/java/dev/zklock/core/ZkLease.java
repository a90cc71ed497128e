package dev.zklock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A lock hold that belongs to no thread: acquired by one thread and released by any, for
 * example by the thread that completes an asynchronous method. Obtained from
 * {@link dev.zklock.core.registry.ZkLockRegistry#acquireLease(String, Duration)}. Not
 * reentrant: a second lease on the same key waits for this one.
 *
 * @author zk-lock
 */
public interface ZkLease extends AutoCloseable {

	/**
	 * Return the lock key.
	 * @return the key
	 */
	String key();

	/**
	 * Return the ZooKeeper path of the lock.
	 * @return the path
	 */
	String path();

	/**
	 * Return the fencing token of this hold (see {@link ZkLock#fencingToken()}).
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return what this JVM knows about the lease.
	 * @return the lease state
	 */
	LeaseState state();

	/**
	 * Return what made the lease {@link LeaseState#LOST LOST}: its ZooKeeper session
	 * expired, or another client deleted its node; in the words {@link LockLostException}
	 * uses.
	 * @return what made it lost, or {@code null} while it is not lost
	 */
	@Nullable String lostBecause();

	/**
	 * Return a Curator transaction that applies only while this lease's node stands: its
	 * multi first checks the ZooKeeper node behind the lease (every key's node, for a
	 * lease on several keys; the permit's node, for a semaphore's), and fails as a whole
	 * with {@link GuardedWriteRefusedException} if it is gone (see
	 * {@link GuardedTransaction}). Any thread may use it until the lease is released;
	 * releasing the lease while a guarded transaction is in flight is a race the guard
	 * does not cover (a released node may linger).
	 * @return the guarded transaction
	 */
	GuardedTransaction guardedTransaction();

	/**
	 * Release the lease, from any thread. Releasing twice is a no-op.
	 * @throws LockLostException if the lease was lost while held and the registry's
	 * policy is {@link LostLockPolicy#THROW}
	 */
	void release();

	/**
	 * Same as {@link #release()}.
	 */
	@Override
	default void close() {
		release();
	}

}
