package dev.zklock.core.internal.readwrite;

/**
 * How a reader's request to join this JVM's read node ({@link ReadWriteEntry#join})
 * ended.
 */
enum Join {

	/** The read hold is covered by a node: held. */
	JOINED,

	/** Nobody acquires a read node: the caller does, for every local reader. */
	ACQUIRE,

	/** Not joined within the deadline. */
	TIMED_OUT,

	/** The registry was closed. */
	CLOSED

}
