package dev.zklock.core;

/**
 * A distributed read/write lock for one key, from
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainReadWrite(String)}: any number of
 * readers hold it together, across JVMs; a writer holds it alone. Wire-compatible with
 * Curator's {@code InterProcessReadWriteLock} on the same path, so both exclude each
 * other as one lock.
 *
 * <p>
 * Each side is a reentrant {@link ZkLock} held by a thread. The writer may take the read
 * side too (a downgrade: release the write side afterwards and keep reading); a reader
 * may not take the write side (an upgrade), which fails at once with
 * {@link IllegalStateException} instead of waiting for ever for its own read. Neither
 * side can be handed to a {@link ZkLease}.
 *
 * @author zk-lock
 */
public interface ZkReadWriteLock {

	/**
	 * Return the read side: shared with other readers, excluded by a writer.
	 * @return the read lock
	 */
	ZkLock readLock();

	/**
	 * Return the write side: excludes readers and other writers.
	 * @return the write lock
	 */
	ZkLock writeLock();

	/**
	 * Return the lock key.
	 * @return the key
	 */
	String key();

	/**
	 * Return the ZooKeeper path of the lock, relative to the client's namespace, as a
	 * plain Curator {@code InterProcessReadWriteLock} would be given it.
	 * @return the path
	 */
	String path();

}
