package dev.zklock.core;

import org.apache.curator.framework.state.ConnectionState;

/**
 * Callback for what happens to the locks of a
 * {@link dev.zklock.core.registry.ZkLockRegistry ZkLockRegistry}. Called on ZooKeeper's
 * event thread or the releasing thread: implementations must return quickly and never
 * block.
 *
 * @author zk-lock
 */
public interface ZkLockListener {

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
