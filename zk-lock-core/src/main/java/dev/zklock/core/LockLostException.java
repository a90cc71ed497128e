package dev.zklock.core;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link ZkLock#unlock()} (under {@link LostLockPolicy#THROW}) when the lease
 * was {@link LeaseState#LOST} while the lock was held: the ZooKeeper session that owned
 * it expired, or another client deleted its node. Another participant may have held the
 * lock at the same time. The local state is already released when this is thrown.
 *
 * @author zk-lock
 */
public class LockLostException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final String path;

	private final long fencingToken;

	/**
	 * Create a new instance.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 */
	public LockLostException(String key, String path, long fencingToken) {
		this(key, path, fencingToken, "the ZooKeeper session expired or another client deleted its node");
	}

	/**
	 * Create a new instance that says what happened.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 * @param lostBecause what made the lease lost, such as "the ZooKeeper session
	 * expired"
	 */
	public LockLostException(String key, String path, long fencingToken, String lostBecause) {
		super("Lock '" + key + "' (ZooKeeper path " + path + ", fencing token " + fencingToken
				+ ") was lost while held: " + lostBecause + ", so another participant may have held it too");
		this.key = key;
		this.path = path;
		this.fencingToken = fencingToken;
	}

	/**
	 * Create a new instance with a message of its own, for a subclass that says what the
	 * loss prevented.
	 * @param message the message
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 * @param cause what revealed the loss, if anything did
	 */
	protected LockLostException(String message, String key, String path, long fencingToken, @Nullable Throwable cause) {
		super(message, cause);
		this.key = key;
		this.path = path;
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
	 * Return the ZooKeeper path of the lock.
	 * @return the path
	 */
	public String getPath() {
		return this.path;
	}

	/**
	 * Return the fencing token of the lost lease.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
