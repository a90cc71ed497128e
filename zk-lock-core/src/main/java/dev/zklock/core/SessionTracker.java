package dev.zklock.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the Curator client's connection and session, and moves every lease this JVM holds to
 * the state that follows from them: {@code SUSPENDED} makes a lease {@link LeaseState#UNCERTAIN},
 * the loss of the lease's session makes it {@link LeaseState#LOST}, a reconnect on the same
 * session makes it {@link LeaseState#HELD} again.
 *
 * <p>The state changes first, then listeners are told: a listener cannot delay or stop it. A
 * lease acquired while an event is being applied is brought in line by
 * {@link #leaseAcquired}, under the same lock, so that no lease misses an event that came
 * between the reply that granted it and its publication.
 */
final class SessionTracker implements ConnectionStateListener {

	private static final Logger logger = LoggerFactory.getLogger(SessionTracker.class);

	private final CuratorFramework client;

	private final ZkOps ops;

	private final Collection<LockEntry> entries;

	private final ZkLockListeners listeners;

	private final ReentrantLock lock = new ReentrantLock();

	private volatile ConnectionStatus status;

	/** The session of the last connect; 0 if unknown. Guarded by lock. */
	private long connectedSession;

	/** The session Curator last reported lost; 0 if none. Guarded by lock. */
	private long lostSession;

	SessionTracker(CuratorFramework client, ZkOps ops, Collection<LockEntry> entries, ZkLockListeners listeners) {
		this.client = client;
		this.ops = ops;
		this.entries = entries;
		this.listeners = listeners;
		boolean connected = client.getZookeeperClient().isConnected();
		this.status = new ConnectionStatus(connected ? ConnectionState.CONNECTED : null, Instant.now());
		this.connectedSession = connected ? ops.sessionId() : 0;
		client.getConnectionStateListenable().addListener(this);
	}

	ConnectionStatus status() {
		return this.status;
	}

	/**
	 * Stop following the client: no lease is left to track.
	 */
	void detach() {
		this.client.getConnectionStateListenable().removeListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState state) {
		List<Change> changes = new ArrayList<>();
		this.lock.lock();
		try {
			this.status = new ConnectionStatus(state, Instant.now());
			if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
				this.connectedSession = this.ops.sessionId();
			}
			else if (state == ConnectionState.LOST) {
				this.lostSession = this.connectedSession;
			}
			for (LockEntry entry : this.entries) {
				Lease lease = entry.lease();
				if (lease != null) {
					LeaseState target = onEvent(lease, state);
					if (target != null && lease.transition(target)) {
						changes.add(new Change(entry, target));
					}
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		this.listeners.tell((listener) -> listener.connectionStateChanged(state), "the connection is " + state);
		changes.forEach((change) -> report(change, state));
	}

	/**
	 * Bring a lease just published in its entry in line with what the connection did since the
	 * reply that granted it.
	 */
	void leaseAcquired(LockEntry entry, Lease lease) {
		LeaseState target;
		ConnectionState state;
		this.lock.lock();
		try {
			state = this.status.state();
			target = onAcquire(lease, state);
			if (target == null || !lease.transition(target)) {
				return;
			}
		}
		finally {
			this.lock.unlock();
		}
		report(new Change(entry, target), state);
	}

	/** Guarded by lock. */
	private @Nullable LeaseState onEvent(Lease lease, ConnectionState state) {
		return switch (state) {
			case SUSPENDED, READ_ONLY -> LeaseState.UNCERTAIN;
			case LOST -> lostWith(lease) ? LeaseState.LOST : null;
			case CONNECTED, RECONNECTED ->
				(lease.sessionId() == this.connectedSession) ? LeaseState.HELD : LeaseState.LOST;
		};
	}

	/** Guarded by lock. */
	private @Nullable LeaseState onAcquire(Lease lease, @Nullable ConnectionState state) {
		if (lease.sessionId() != this.ops.sessionId()) {
			// The client moved to another session after the reply: ours is gone
			return LeaseState.LOST;
		}
		if (state == null) {
			return null;
		}
		return switch (state) {
			case SUSPENDED, READ_ONLY -> LeaseState.UNCERTAIN;
			// A lease of a newer session than the lost one was granted before its connect event came
			case LOST -> lostWith(lease) ? LeaseState.LOST : null;
			case CONNECTED, RECONNECTED -> null;
		};
	}

	/** Guarded by lock. */
	private boolean lostWith(Lease lease) {
		return this.lostSession == 0 || lease.sessionId() == this.lostSession;
	}

	private void report(Change change, @Nullable ConnectionState state) {
		LockEntry entry = change.entry();
		LeaseState leaseState = change.state();
		if (leaseState != LeaseState.HELD) {
			logger.warn("Lock '{}' ({}) is {} after the ZooKeeper connection was {}", entry.key(), entry.path(),
					leaseState, state);
		}
		this.listeners.tell((listener) -> listener.leaseStateChanged(entry.key(), entry.path(), leaseState),
				"lock '" + entry.key() + "' is " + leaseState);
	}

	private record Change(LockEntry entry, LeaseState state) {
	}

}
