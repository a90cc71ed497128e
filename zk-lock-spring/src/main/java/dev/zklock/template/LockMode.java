package dev.zklock.template;

/**
 * Which lock a {@link dev.zklock.annotation.DistributedLock @DistributedLock} method
 * takes on its key: the exclusive lock, or a side of the key's read/write lock.
 *
 * <p>
 * The two are different ZooKeeper recipes on the same path, and do not exclude each
 * other: a key is locked either exclusively or with {@code READ}/{@code WRITE},
 * everywhere. An application that declares both on the same key expression fails to
 * start.
 *
 * @author zk-lock
 * @see dev.zklock.annotation.DistributedLock#mode()
 */
public enum LockMode {

	/**
	 * The exclusive, reentrant lock: one holder at a time, across JVMs. The default.
	 */
	EXCLUSIVE,

	/**
	 * The read side of the key's read/write lock: held by any number of readers at once,
	 * across JVMs, and excluded by a writer. Reentrant, and may be taken by a thread that
	 * holds the write side (a downgrade). Held by the calling thread, so only for a
	 * method whose work ends when it returns.
	 */
	READ,

	/**
	 * The write side of the key's read/write lock: excludes readers and other writers.
	 * Reentrant; a thread that holds only the read side cannot take it (an upgrade could
	 * wait for ever for its own read) and gets an {@link IllegalStateException} at once.
	 * Held by the calling thread, so only for a method whose work ends when it returns.
	 */
	WRITE

}
