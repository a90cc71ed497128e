package dev.zklock.core;

import org.apache.curator.framework.state.ConnectionState;

/**
 * Callback for what happens to the locks of a
 * {@link dev.zklock.core.registry.ZkLockRegistry ZkLockRegistry}. Called on ZooKeeper's
 * event thread, the releasing thread or the acquiring thread: implementations must return
 * quickly and never block, except as {@link #acquired(String, String)} allows.
 *
 * @author zk-lock
 */
public interface ZkLockListener {

	/**
	 * Called on the thread that acquired a key, once this JVM holds it and before the
	 * call that asked for it returns: before the work guarded by the lock begins. Not
	 * called when a thread takes a lock it already holds again, nor for a leader's term;
	 * for a lock on several keys, called for each key once all are held.
	 * <p>
	 * Blocking here holds up only the acquiring thread, which then runs its work later,
	 * still holding the lock. Production listeners should not; a test may, to act inside
	 * the locked window: {@code zk-lock-test}'s hooks are built on this.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 */
	default void acquired(String key, String path) {
	}

	/**
	 * Called when a held lease changes state, for example when the connection is
	 * suspended.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param state the new state
	 */
	default void leaseStateChanged(String key, String path, LeaseState state) {
	}

	/**
	 * Called when a held lease is passed to the next waiting thread of this JVM without a
	 * ZooKeeper round trip.
	 * @param key the lock key
	 */
	default void handedOff(String key) {
	}

	/**
	 * Called when Curator reports a new connection state.
	 * @param state the new state
	 */
	default void connectionStateChanged(ConnectionState state) {
	}

}
