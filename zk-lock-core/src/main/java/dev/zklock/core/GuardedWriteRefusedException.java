package dev.zklock.core;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link GuardedTransaction} that refused to write because the lock behind it
 * is lost: the node through which this JVM held the lock no longer exists (its session
 * expired on the server, or another client deleted it), the lease is known
 * {@link LeaseState#LOST lost}, or the client's session is no longer the one that created
 * the node. None of the transaction's operations was applied: ZooKeeper applies a multi
 * whole or not at all, and a refusal before sending sends nothing. The lock is still held
 * locally: release it as usual.
 *
 * @author zk-lock
 */
public class GuardedWriteRefusedException extends LockLostException {

	private static final long serialVersionUID = 1L;

	private final String nodePath;

	/**
	 * Create a new instance.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param nodePath the ZooKeeper path of the node the transaction checked
	 * @param fencingToken the fencing token of the lost lease
	 * @param refusedBecause why, such as "the node no longer exists"
	 * @param cause ZooKeeper's failure of the check, if the multi was sent
	 */
	public GuardedWriteRefusedException(String key, String path, String nodePath, long fencingToken,
			String refusedBecause, @Nullable Throwable cause) {
		super("Guarded transaction on lock '" + key + "' refused, nothing written: its node " + nodePath
				+ " (fencing token " + fencingToken + ") " + refusedBecause
				+ "; none of the transaction's operations was applied", key, path, fencingToken, cause);
		this.nodePath = nodePath;
	}

	/**
	 * Return the ZooKeeper path of the node the transaction checked: the node through
	 * which this JVM held the lock.
	 * @return the node's path, relative to the client's namespace
	 */
	public String getNodePath() {
		return this.nodePath;
	}

}
