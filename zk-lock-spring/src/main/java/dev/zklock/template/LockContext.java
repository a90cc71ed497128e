package dev.zklock.template;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;

/**
 * The lock held for the current
 * {@link dev.zklock.annotation.DistributedLock @DistributedLock} invocation (or
 * {@link ZkLockTemplate} task), seen from inside it:
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'stock:' + #sku")
 * public void restock(String sku, int quantity) {
 *     long token = LockContext.current().fencingToken();
 *     // UPDATE stock SET quantity = ?, fence = ? WHERE sku = ? AND fence &lt;= ?
 *     this.jdbc.update(SQL, quantity, token, sku, token);
 * }
 * </pre>
 *
 * <p>
 * Available on the thread that invoked the method, while it runs: for a method returning
 * a {@code CompletionStage}, in its synchronous part (before it returns the stage); for a
 * reactive method, while the method itself is called to assemble its publisher (on the
 * thread that acquired the lock); not in callbacks that run later on other threads.
 * Capture what those need (the fencing token, the keys) in the synchronous part. For a
 * reentrant call, the context is the innermost method's.
 *
 * @author zk-lock
 * @see dev.zklock.annotation.DistributedLock
 */
public interface LockContext {

	/**
	 * Return the context of the innermost lock this thread holds for an invocation.
	 * @return the context
	 * @throws IllegalStateException if this thread runs no {@code @DistributedLock}
	 * method or template task
	 */
	static LockContext current() {
		LockContext context = LockContextHolder.get();
		if (context == null) {
			throw new IllegalStateException("No lock context: LockContext.current() works on the thread that runs a "
					+ "@DistributedLock method or ZkLockTemplate task, while it runs");
		}
		return context;
	}

	/**
	 * Return the context of the innermost lock this thread holds for an invocation, if
	 * any.
	 * @return the context, or {@code null}
	 */
	static @Nullable LockContext find() {
		return LockContextHolder.get();
	}

	/**
	 * Return the lock's name, as in metrics.
	 * @return the name
	 */
	String name();

	/**
	 * Return the keys locked for this invocation, in lock order.
	 * @return the keys, at least one
	 */
	List<String> keys();

	/**
	 * Return the key locked for this invocation.
	 * @return the key
	 * @throws IllegalStateException if several keys are locked; use {@link #keys()}
	 */
	String key();

	/**
	 * Return the fencing token of the key locked for this invocation: the creation zxid
	 * of the ZooKeeper node behind the hold, strictly increasing from one holding JVM or
	 * session to the next. Give it to the store the lock protects, and have the store
	 * refuse a write whose token is lower than one it has seen.
	 * @return the fencing token
	 * @throws IllegalStateException if several keys are locked; use
	 * {@link #fencingToken(String)}
	 */
	long fencingToken();

	/**
	 * Return the fencing token of one of the keys locked for this invocation.
	 * @param key the key
	 * @return the fencing token
	 * @throws IllegalArgumentException if the key is not locked for this invocation
	 */
	long fencingToken(String key);

	/**
	 * Return what this JVM knows now about the lease: {@code HELD}, {@code UNCERTAIN}
	 * while the connection is suspended, {@code LOST} once the session is gone. With
	 * several keys, the least certain of them.
	 * @return the lease state
	 */
	LeaseState leaseState();

	/**
	 * Check, right before a write the lock protects, that the lease is still
	 * {@code HELD}: a read of what this JVM knows, with no ZooKeeper request. It cannot
	 * prove the lease is held at the moment of the write (a pause may come between the
	 * two; fence the write with the {@linkplain #fencingToken() token} for that), but it
	 * keeps work that this JVM knows to be unprotected from writing.
	 * <p>
	 * {@code UNCERTAIN} fails too: the connection is suspended, the session may be
	 * expiring and another participant may get the lock as soon as it has; a write then
	 * is exactly the risky case. Wait for the connection and check again, or give up.
	 * @throws LockLostException if the lease is {@code LOST}: its session expired, or
	 * another client deleted its node
	 * @throws LeaseUncertainException if the lease is {@code UNCERTAIN}: the connection
	 * to ZooKeeper is suspended
	 */
	void checkHeld();

	/**
	 * Return whether someone asked for this lock back, for a method declared
	 * {@code @DistributedLock(revocable = true)}; always {@code false} for other holds,
	 * whose nodes are not watched for requests.
	 * @return whether revocation was requested
	 */
	boolean isRevocationRequested();

	/**
	 * Return a Curator transaction that applies only while this invocation's lock is
	 * held: its multi first checks the ZooKeeper node behind the hold (every key's node,
	 * with several keys; the permit's node, for a semaphore), and fails as a whole with
	 * {@link dev.zklock.core.GuardedWriteRefusedException GuardedWriteRefusedException}
	 * if it is gone, having written nothing. For state kept in ZooKeeper:
	 *
	 * <pre class="code">
	 * LockContext.current().guardedTransaction().forOperations(
	 *         client.transactionOp().setData().forPath("/shop/stock/" + sku, bytes));
	 * </pre>
	 *
	 * Use it on the thread that runs the method, while it runs, as the rest of the
	 * context. See {@link GuardedTransaction}.
	 * @return the guarded transaction
	 * @throws UnsupportedOperationException for the context of a lease given to
	 * {@code ZkLockTemplate.runInContext}: use the lease's own
	 * {@link dev.zklock.core.ZkLease#guardedTransaction() guardedTransaction()}
	 */
	GuardedTransaction guardedTransaction();

}
