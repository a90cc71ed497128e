package dev.zklock.template;

/**
 * Thrown by {@link LockContext#checkHeld()} when the lease is
 * {@link dev.zklock.core.LeaseState#UNCERTAIN UNCERTAIN}: the connection to ZooKeeper is
 * suspended, so this JVM cannot tell whether it still holds the lock, and another
 * participant may take it as soon as the session expires. The work should not write until
 * the connection is back.
 *
 * @author zk-lock
 */
public class LeaseUncertainException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final long fencingToken;

	/**
	 * Create a new instance.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the hold
	 */
	public LeaseUncertainException(String key, String path, long fencingToken) {
		super("Lock '" + key + "' (ZooKeeper path " + path + ", fencing token " + fencingToken
				+ ") may no longer be held: the connection to ZooKeeper is suspended, and the session may be "
				+ "expiring; do not write until the connection is back");
		this.key = key;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the lock key.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return the fencing token of the hold.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
