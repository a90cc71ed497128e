package dev.zklock.core;

import java.util.List;

import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;

/**
 * A Curator transaction ({@code multi}) guarded by a held lock: it applies only while the
 * ZooKeeper node through which this JVM holds the lock still exists, in the session that
 * created it, and fails as a whole otherwise. Obtained from
 * {@link ZkLock#guardedTransaction()} or {@link ZkLease#guardedTransaction()}; used like
 * Curator's {@code client.transaction()}:
 *
 * <pre class="code">
 * CuratorFramework client = registry.getClient();
 * lock.guardedTransaction().forOperations(
 *         client.transactionOp().setData().forPath("/shop/stock/42", bytes),
 *         client.transactionOp().create().forPath("/shop/orders/order-", order));
 * </pre>
 *
 * <p>
 * The first operation of the multi, before the given ones, is a {@code check} of the held
 * node (of every key's node, for a lock on several keys). ZooKeeper applies a multi
 * atomically: all of it, or nothing. The node's name is ephemeral-sequential, so unique:
 * while it exists, it belongs to the session that created it, and that session has not
 * expired on the server (the server deletes an expired session's ephemeral nodes). Before
 * sending, the transaction refuses if the lease is known {@link LeaseState#LOST lost}, or
 * if the client's ZooKeeper handle is no longer the session that created the node (it
 * expired and Curator opened a new one: the old node may still exist until the server
 * expires the old session, but the lock is lost); the multi is then sent on that very
 * handle, so it can only apply in the node's session. A refusal, before sending or by the
 * check, throws {@link GuardedWriteRefusedException}: nothing was written.
 *
 * <p>
 * With no operations, the multi is the checks alone: one request that tells for certain
 * whether the lock is still held, where {@link ZkLock#leaseState()} tells only what this
 * JVM has heard. It returns an empty list while held, and throws
 * {@link GuardedWriteRefusedException} otherwise. A node that is gone never comes back,
 * so a check that passes proves the lock was held at every moment before it, back to the
 * acquisition.
 *
 * <p>
 * Unlike Curator's foreground transaction, the multi is sent once: Curator resends an
 * operation after a connection loss, under its retry policy, and a resent multi whose
 * check fails would hide that the first one may have applied. A connection loss, a
 * session expiry or an interrupt while the multi is in flight is thrown as ZooKeeper
 * reports it ({@link KeeperException.ConnectionLossException},
 * {@link KeeperException.SessionExpiredException}, {@link InterruptedException}): then,
 * and only then, the outcome is unknown (read the data again). While the connection is
 * suspended the multi waits for it as any ZooKeeper request does.
 *
 * <p>
 * Build the operations with the registry's client ({@code registry.getClient()
 * .transactionOp()}): each operation carries the namespace of the client that built it.
 * Results and paths are the ones Curator's own transaction returns: relative to that
 * namespace. Curator's schema validation is not applied.
 *
 * <p>
 * The guard protects state in ZooKeeper against holders that lost the lock, when every
 * writer of that state writes it through a guarded transaction of the same lock; it
 * protects nothing written elsewhere (a database: see fencing tokens).
 *
 * @author zk-lock
 * @see ZkLock#guardedTransaction()
 * @see ZkLease#guardedTransaction()
 */
public interface GuardedTransaction {

	/**
	 * Run the operations in one multi, after a check of the held node.
	 * @param operations the operations, at least one, built with
	 * {@code client.transactionOp()}
	 * @return the results of the given operations, in their order (not the check's)
	 * @throws GuardedWriteRefusedException if the held node no longer exists, or the
	 * lease is lost, or the client's session is no longer the node's: nothing was written
	 * @throws IllegalMonitorStateException if the calling thread does not hold the lock
	 * (for a {@link ZkLock}): nothing was sent
	 * @throws IllegalStateException if the lease was released (for a {@link ZkLease}):
	 * nothing was sent
	 * @throws IllegalArgumentException if there is no operation: nothing was sent
	 * @throws KeeperException as ZooKeeper reports a failed multi: one of the given
	 * operations failed (its {@link KeeperException#getResults() results} start with the
	 * check's, which passed), and nothing was written; or the connection was lost or the
	 * session expired while the multi was in flight, and the outcome is unknown
	 * @throws Exception as Curator's {@code forOperations} may
	 */
	List<CuratorTransactionResult> forOperations(CuratorOp... operations) throws Exception;

	/**
	 * Run the operations in one multi, after a check of the held node. See
	 * {@link #forOperations(CuratorOp...)}.
	 * @param operations the operations, at least one, built with
	 * {@code client.transactionOp()}
	 * @return the results of the given operations, in their order (not the check's)
	 * @throws Exception as {@link #forOperations(CuratorOp...)} says
	 */
	List<CuratorTransactionResult> forOperations(List<CuratorOp> operations) throws Exception;

}
