package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * A distributed, reentrant lock for one key, held by a thread. Obtained from
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtain(String)}; the handle is cheap and
 * holds no state of its own, so it may be obtained per call or kept.
 *
 * <p>
 * A thread that locks again a lock it holds counts one more hold, with no ZooKeeper
 * request, unless its lease was {@link LeaseState#LOST lost}: then every way of locking
 * throws {@link LockLostException}, since another participant may hold the lock now. The
 * thread still holds it locally and must unlock it as usual.
 *
 * <p>
 * The usual {@link Lock} contract applies: {@code unlock()} must be called by the thread
 * that locked, once per successful lock. {@link #tryLock(long, TimeUnit)} returns
 * {@code false} within about its wait, also while ZooKeeper is unreachable.
 * {@link #newCondition()} is not supported.
 *
 * @author zk-lock
 */
public interface ZkLock extends Lock {

	/**
	 * Acquire the lock, waiting at most {@code waitAtMost}; {@link Duration#ZERO} makes
	 * one attempt, which fails at once while the client is not connected.
	 * @param waitAtMost the longest time to wait
	 * @throws LockAcquisitionException if the lock was not acquired, naming the reason
	 */
	void acquire(Duration waitAtMost);

	/**
	 * Release the lock.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockLostException if the lease was lost while held and the registry's
	 * {@link LostLockPolicy} is {@link LostLockPolicy#THROW}; the lock is released all
	 * the same
	 */
	@Override
	void unlock();

	/**
	 * Return whether the current thread holds this lock.
	 * @return {@code true} if held by the current thread
	 */
	boolean isHeldByCurrentThread();

	/**
	 * Return the fencing token of the current hold: the creation zxid of the ZooKeeper
	 * node that backs it. It strictly increases between holders in different JVMs or
	 * sessions; threads of one JVM that receive the lock by local hand-off share the
	 * token of the node they share.
	 * @return the fencing token
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	long fencingToken();

	/**
	 * Return what this JVM knows about the lease behind the current hold.
	 * @return the lease state
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	LeaseState leaseState();

	/**
	 * Return what made the lease behind the current hold {@link LeaseState#LOST LOST}:
	 * its ZooKeeper session expired, or another client deleted its node; in the words
	 * {@link LockLostException} uses.
	 * @return what made it lost, or {@code null} while it is not lost
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	@Nullable String lostBecause();

	/**
	 * Ask to be told when someone requests that this hold be given up: through
	 * {@link dev.zklock.core.registry.ZkLockRegistry#requestRevocation(String)}, or
	 * Curator's {@code Revoker.attemptRevoke} on this JVM's node, both of which write
	 * Curator's {@code __REVOKE__} into it. The first call for a node arms a watch on it
	 * (one read), unless its {@linkplain ZkLockOptions#linger() linger} armed it already.
	 * The listener runs once, on a ZooKeeper event thread, and must not block; it is
	 * forgotten when the current thread's hold ends. A request asks; it takes nothing
	 * away: the lock stays held until released. While the node is watched, its delete by
	 * another client is heard too: the lease becomes {@link LeaseState#LOST}.
	 * @param listener what to run when revocation is requested, at once if it was already
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	void onRevocationRequested(Runnable listener);

	/**
	 * Return whether revocation of the current hold was requested and this JVM knows it:
	 * only once a watch on the node is armed, by {@link #onRevocationRequested} or by the
	 * node's first {@linkplain ZkLockOptions#linger() linger}.
	 * @return whether revocation was requested
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	boolean isRevocationRequested();

	/**
	 * Hand this thread's hold to a {@link ZkLease} that any thread may release: for work
	 * that goes on after the calling method returns, such as a {@code CompletableFuture}
	 * or a reactive stream. The lock stays held throughout; from now on the lease holds
	 * it and the thread does not. Only an outermost hold can be handed over: the work
	 * could not give back the holds of the callers further up.
	 * @return the lease now holding the lock
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws IllegalStateException if the current thread holds it more than once
	 */
	ZkLease toLease();

	/**
	 * Return a Curator transaction that applies only while the current thread's hold
	 * stands: its multi first checks the ZooKeeper node behind the hold, and fails as a
	 * whole with {@link GuardedWriteRefusedException} if the node is gone (see
	 * {@link GuardedTransaction}). For a lock on several keys, every key's node is
	 * checked. For the read side of a read/write lock, the check proves that no writer
	 * holds the lock, not that no other reader writes. Creating it asks nothing of
	 * ZooKeeper; the hold is looked up when {@code forOperations} runs, on the thread
	 * that calls it, which must hold the lock then.
	 * @return the guarded transaction
	 */
	GuardedTransaction guardedTransaction();

	/**
	 * Return the lock key.
	 * @return the key
	 */
	String key();

	/**
	 * Return the ZooKeeper path of the lock, relative to the client's namespace, as a
	 * plain Curator {@code InterProcessMutex} would be given it.
	 * @return the path
	 */
	String path();

	/**
	 * Not supported: a distributed lock has no distributed condition.
	 * @return never
	 * @throws UnsupportedOperationException always
	 */
	@Override
	default Condition newCondition() {
		throw new UnsupportedOperationException("ZkLock does not support conditions");
	}

}
