package dev.zklock.core.internal.mutex;

/**
 * How a request for an entry's local slot ({@link MutexEntry#acquireSlot}) ended.
 */
enum Slot {

	/** Not granted within the deadline. */
	TIMED_OUT,

	/** The slot is ours, without a node: acquire one in ZooKeeper. */
	GRANTED,

	/**
	 * The slot is ours with the previous holder's node: we hold the lock already.
	 */
	HANDED_OFF,

	/** The registry was closed while we waited. */
	CLOSED

}
