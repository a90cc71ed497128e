package dev.zklock.core;

/**
 * The ZooKeeper node through which this JVM holds a key: it belongs to the key's
 * {@link LockEntry}, not to a thread, so it can pass from one local holder to the next.
 */
final class Lease {

	private final String nodePath;

	private final long fencingToken;

	private final long sessionId;

	private volatile LeaseState state = LeaseState.HELD;

	Lease(String nodePath, long fencingToken, long sessionId) {
		this.nodePath = nodePath;
		this.fencingToken = fencingToken;
		this.sessionId = sessionId;
	}

	String nodePath() {
		return this.nodePath;
	}

	long fencingToken() {
		return this.fencingToken;
	}

	long sessionId() {
		return this.sessionId;
	}

	LeaseState state() {
		return this.state;
	}

	/**
	 * Move to a new state; LOST is final. Returns whether the state changed.
	 */
	synchronized boolean transition(LeaseState to) {
		if (this.state == to || this.state == LeaseState.LOST) {
			return false;
		}
		this.state = to;
		return true;
	}

}
