package dev.zklock.core;

/**
 * What this JVM knows about a lease it holds in ZooKeeper.
 *
 * <p>
 * Curator's documentation puts it plainly: after the connection is SUSPENDED you cannot
 * be certain you still hold a lock, and after it is LOST you certainly do not. These
 * states make that visible instead of letting a holder go on believing it holds.
 *
 * @author zk-lock
 */
public enum LeaseState {

	/**
	 * The lease node exists and the session that owns it is connected.
	 */
	HELD,

	/**
	 * The connection to ZooKeeper is suspended: the session may still be alive (the node
	 * then still exists) or may be expiring. Another JVM cannot acquire the lock until
	 * the session has expired, but this JVM cannot prove it still holds it either.
	 */
	UNCERTAIN,

	/**
	 * The session that owned the lease expired, or another client deleted its node (heard
	 * only while the node is watched, as a hold that listens for revocation requests
	 * does): the node is gone, and another participant may hold the lock now. Work
	 * guarded by the lock should stop; writes should be fenced.
	 */
	LOST;

	/**
	 * Return the less certain of this state and another: {@code LOST} if either is lost,
	 * else {@code UNCERTAIN} if either is uncertain, else {@code HELD}. The state of a
	 * hold on several keys is the least certain of theirs.
	 * @param other the other state
	 * @return the less certain of the two
	 */
	public LeaseState lessCertain(LeaseState other) {
		return (ordinal() >= other.ordinal()) ? this : other;
	}

}
