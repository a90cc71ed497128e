package dev.zklock.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.LeaseState;

/**
 * Follows the Curator client's connection and session, and moves every node this JVM
 * holds to the state that follows from them: {@code SUSPENDED} makes a node
 * {@link LeaseState#UNCERTAIN}, the loss of the node's session makes it
 * {@link LeaseState#LOST}, a reconnect on the same session makes it
 * {@link LeaseState#HELD} again.
 *
 * <p>
 * The state changes first, then listeners are told: a listener cannot delay or stop it. A
 * node is published in its entry between {@link #admit} and {@link #published}, under the
 * same lock as the events are applied, so that no node misses an event that came between
 * the reply that granted it and its publication, and no node of a session already gone is
 * handed out at all.
 *
 * <p>
 * Each state change is logged once, with the connect string, since when the connection is
 * down and what it means for the locks held: one line, not one per lock, so that an
 * outage reads the same with one lock held or a thousand.
 *
 * <p>
 * A client that has never connected has no session to suspend or lose: Curator reports
 * {@code SUSPENDED} once its connection timeout has passed and {@code LOST} a session
 * timeout later, but the status stays "never connected" ({@code null}) until a first
 * connection, and the log says so ({@value #NEVER_CONNECTED}).
 */
public final class SessionTracker implements ConnectionStateListener {

	/**
	 * The category of the connection lines, documented for users to configure and filter
	 * (README, "What zk-lock logs"): kept when this class moved out of the API package.
	 */
	private static final Logger logger = LoggerFactory.getLogger("dev.zklock.core.SessionTracker");

	/** The state of a client that has not connected since the registry was created. */
	static final String NEVER_CONNECTED = "NEVER_CONNECTED";

	/** Keys named in a state change's line; the rest are counted. */
	private static final int KEYS_NAMED = 5;

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss")
		.withZone(ZoneId.systemDefault());

	private final CuratorFramework client;

	private final ZkOps ops;

	private final Iterable<TableEntry> entries;

	private final ZkLockListeners listeners;

	private final ReentrantLock lock = new ReentrantLock();

	private volatile ConnectionStatus status = new ConnectionStatus(null, Instant.now());

	/** The session of the last connect; 0 if unknown. Guarded by lock. */
	private long connectedSession;

	/** The session Curator last reported lost; 0 if none. Guarded by lock. */
	private long lostSession;

	/**
	 * When the connection went down (or, never connected, when the registry was created),
	 * null while it is up. Written under lock.
	 */
	private volatile @Nullable Instant downSince;

	/**
	 * Whether the client has had a session since the registry was created (or before, if
	 * it had one then). Written under lock.
	 */
	private volatile boolean everConnected;

	SessionTracker(CuratorFramework client, ZkOps ops, Iterable<TableEntry> entries, ZkLockListeners listeners) {
		this.client = client;
		this.ops = ops;
		this.entries = entries;
		this.listeners = listeners;
		this.lock.lock();
		try {
			// Listen first, then read: an event in between waits for the lock and is
			// applied after
			client.getConnectionStateListenable().addListener(this);
			boolean connected = client.getZookeeperClient().isConnected();
			Instant now = Instant.now();
			this.status = new ConnectionStatus(connected ? ConnectionState.CONNECTED : null, now);
			this.connectedSession = connected ? ops.sessionId() : 0;
			// A handle that is down but has a session id had a connection before
			this.everConnected = connected || ops.sessionId() != 0;
			this.downSince = connected ? null : now;
		}
		finally {
			this.lock.unlock();
		}
	}

	public ConnectionStatus status() {
		return this.status;
	}

	/**
	 * Stop following the client: no node is left to track.
	 */
	void detach() {
		this.client.getConnectionStateListenable().removeListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState state) {
		List<Change> changes = new ArrayList<>();
		Set<TableEntry> changed = new LinkedHashSet<>();
		Instant now = Instant.now();
		@Nullable Instant wasDownSince;
		boolean neverConnected;
		this.lock.lock();
		try {
			neverConnected = !this.everConnected && !state.isConnected();
			if (!neverConnected) {
				// Never connected, the status stays so: no session was suspended or lost
				this.status = new ConnectionStatus(state, now);
				this.everConnected = true;
			}
			wasDownSince = this.downSince;
			this.downSince = state.isConnected() ? null : ((wasDownSince != null) ? wasDownSince : now);
			if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
				// 0 if the handle cannot be had: then nothing is concluded about any
				// node
				this.connectedSession = this.ops.sessionId();
			}
			else if (state == ConnectionState.LOST) {
				this.lostSession = this.connectedSession;
			}
			for (TableEntry entry : this.entries) {
				entry.forEachHeldNode((node) -> {
					LeaseState target = onEvent(node, state);
					// A lingering node follows the session too, so that it is reused only
					// while HELD, but nobody holds it: no lock changed for anyone to hear
					if (target != null && node.transition(target)) {
						changed.add(entry);
						if (!entry.isLingering()) {
							changes.add(new Change(entry, target));
						}
					}
				});
			}
		}
		finally {
			this.lock.unlock();
		}
		changed.forEach(TableEntry::heldNodesChanged);
		if (neverConnected) {
			logNeverConnected(state, (wasDownSince != null) ? wasDownSince : now, now);
		}
		else {
			logStateChange(state, wasDownSince, now, changes);
		}
		this.listeners.tell((listener) -> listener.connectionStateChanged(state), "the connection is " + state);
		changes.forEach((change) -> tell(change));
	}

	/**
	 * One line for a state change, whatever the number of locks it concerns. Without a
	 * stack trace: the cause is the network or the server, and ZooKeeper's client has the
	 * details at its own levels.
	 */
	private void logStateChange(ConnectionState state, @Nullable Instant wasDownSince, Instant now,
			List<Change> changes) {
		String connectString = this.client.getZookeeperClient().getCurrentConnectionString();
		Instant downSince = (wasDownSince != null) ? wasDownSince : now;
		switch (state) {
			case SUSPENDED, READ_ONLY -> logger.warn("ZooKeeper connection {} (connect string {}) since {}; {}", state,
					connectString, TIME.format(downSince), locks(changes, LeaseState.UNCERTAIN.name()));
			case LOST -> {
				String message = "ZooKeeper session LOST (connect string {}), the connection down since {}; {}";
				if (changes.isEmpty()) {
					logger.warn(message, connectString, TIME.format(downSince), locks(changes, LeaseState.LOST.name()));
				}
				else {
					logger.error(message, connectString, TIME.format(downSince),
							locks(changes, LeaseState.LOST.name()));
				}
			}
			case RECONNECTED -> {
				List<Change> lost = changes.stream().filter((change) -> change.state() == LeaseState.LOST).toList();
				String locks = lost.isEmpty() ? locks(changes, "HELD again")
						: "on a new session; " + locks(lost, LeaseState.LOST.name());
				logger.info("ZooKeeper connection RECONNECTED (connect string {}) after {}; {}", connectString,
						seconds(downSince, now), locks);
			}
			case CONNECTED -> {
				if (wasDownSince != null) {
					logger.info("ZooKeeper connection CONNECTED (connect string {}) after {} without one",
							connectString, seconds(wasDownSince, now));
				}
				else {
					// Already connected when the registry was created: Curator delivers
					// the
					// event it queued before, which tells nothing new
					logger.debug("ZooKeeper connection CONNECTED (connect string {})", connectString);
				}
			}
		}
	}

	/**
	 * One line for Curator's {@code SUSPENDED} or {@code LOST} of a client that has never
	 * connected: no session, so none is suspended or lost, and no lock is held.
	 */
	private void logNeverConnected(ConnectionState state, Instant downSince, Instant now) {
		String connectString = this.client.getZookeeperClient().getCurrentConnectionString();
		if (state == ConnectionState.LOST) {
			logger.warn(
					"ZooKeeper connection still {} (connect string {}) after {}: no session was ever "
							+ "established, so none was lost; locks fail until ZooKeeper can be reached",
					NEVER_CONNECTED, connectString, seconds(downSince, now));
		}
		else {
			logger.warn(
					"ZooKeeper connection {} (connect string {}) since {}: not connected yet; "
							+ "locks fail until ZooKeeper can be reached",
					NEVER_CONNECTED, connectString, TIME.format(downSince));
		}
	}

	private static String seconds(Instant from, Instant to) {
		long tenths = Duration.between(from, to).toMillis() / 100;
		return tenths / 10 + "." + tenths % 10 + " s";
	}

	/**
	 * What a caller that needs ZooKeeper now is told while the client is not connected:
	 * the connection's state, since when, and the connect string.
	 */
	public String notConnected() {
		String connectString = "connect string " + this.client.getZookeeperClient().getCurrentConnectionString();
		Instant down = this.downSince;
		String since = (down != null) ? " since " + TIME.format(down) : "";
		if (!this.everConnected) {
			return "not connected: " + NEVER_CONNECTED + ", the client has not connected to ZooKeeper" + since + "; "
					+ connectString;
		}
		ConnectionState state = this.status.state();
		if (state == ConnectionState.LOST) {
			return "not connected: the session was LOST, the connection down" + since
					+ ", and the client is reconnecting on a new session; " + connectString;
		}
		if (state == ConnectionState.SUSPENDED || state == ConnectionState.READ_ONLY) {
			return "not connected: the connection is " + state + since + "; " + connectString;
		}
		// Down, and Curator has not said so yet
		return "not connected: the connection is down; " + connectString;
	}

	private static String locks(List<Change> changes, String state) {
		if (changes.isEmpty()) {
			return "no lock is held";
		}
		StringBuilder line = new StringBuilder();
		line.append(changes.size()).append((changes.size() == 1) ? " held lock is " : " held locks are ");
		line.append(state).append(": ");
		for (int i = 0; i < Math.min(KEYS_NAMED, changes.size()); i++) {
			line.append((i > 0) ? ", " : "").append('\'').append(changes.get(i).entry().key()).append('\'');
		}
		if (changes.size() > KEYS_NAMED) {
			line.append(" and ").append(changes.size() - KEYS_NAMED).append(" more");
		}
		return line.toString();
	}

	/**
	 * Admit a node just granted by ZooKeeper for publication, unless its session is gone
	 * already: the client moved to another session since the reply, or Curator reported
	 * the session lost. An admitted node is published in its entry before
	 * {@link #published} lets the events be applied again, so that it misses none; one
	 * published while the connection is suspended starts {@link LeaseState#UNCERTAIN}.
	 * @return whether the node was admitted, the events now held back; if not, the caller
	 * owns its node still
	 */
	boolean admit(HeldNode node) {
		this.lock.lock();
		boolean admitted = false;
		try {
			ConnectionState state = this.status.state();
			admitted = node.sessionId() == this.ops.sessionId() && !(state == ConnectionState.LOST && lostWith(node));
			return admitted;
		}
		finally {
			if (!admitted) {
				this.lock.unlock();
			}
		}
	}

	/**
	 * The node {@link #admit admitted} is published in {@code entry}: apply the state the
	 * connection is in, and let the events be applied again.
	 */
	void published(TableEntry entry, HeldNode node) {
		ConnectionState state;
		boolean uncertain;
		try {
			state = this.status.state();
			uncertain = (state == ConnectionState.SUSPENDED || state == ConnectionState.READ_ONLY)
					&& node.transition(LeaseState.UNCERTAIN);
		}
		finally {
			this.lock.unlock();
		}
		if (uncertain) {
			report(new Change(entry, LeaseState.UNCERTAIN), state);
		}
	}

	/**
	 * A held node was deleted, not by its release (another client, or the application
	 * through this client), while the client's session is the node's: if the node is the
	 * entry's, it is {@link LeaseState#LOST}, as if its session had gone, and a hold lost
	 * is reported. A lingering node, which nobody holds, changes no lock for anyone to
	 * hear of.
	 */
	void nodeDeleted(TableEntry entry, HeldNode node) {
		if (node.sessionId() != this.ops.sessionId()) {
			// Gone with a session the client has left: the session's own events tell it
			return;
		}
		if (!entry.loseDeletedNode(node)) {
			return;
		}
		entry.heldNodesChanged();
		logger.error("Lock '{}' ({}) is LOST: its node {} was deleted, not by its release, while this JVM held it",
				entry.key(), entry.path(), node.nodePath());
		tell(new Change(entry, LeaseState.LOST));
	}

	/** Guarded by lock. */
	private @Nullable LeaseState onEvent(HeldNode node, ConnectionState state) {
		return switch (state) {
			case SUSPENDED, READ_ONLY -> LeaseState.UNCERTAIN;
			case LOST -> lostWith(node) ? LeaseState.LOST : null;
			case CONNECTED, RECONNECTED -> {
				if (this.connectedSession == 0) {
					yield null;
				}
				yield (node.sessionId() == this.connectedSession) ? LeaseState.HELD : LeaseState.LOST;
			}
		};
	}

	/** Guarded by lock. */
	private boolean lostWith(HeldNode node) {
		return this.lostSession == 0 || node.sessionId() == this.lostSession;
	}

	/**
	 * A node published while the connection is down: its own line, as the state change's
	 * line did not name it.
	 */
	private void report(Change change, @Nullable ConnectionState state) {
		TableEntry entry = change.entry();
		logger.warn("Lock '{}' ({}) is {}: the ZooKeeper connection is {}", entry.key(), entry.path(), change.state(),
				state);
		tell(change);
	}

	private void tell(Change change) {
		TableEntry entry = change.entry();
		LeaseState leaseState = change.state();
		this.listeners.tell((listener) -> listener.leaseStateChanged(entry.key(), entry.path(), leaseState),
				"lock '" + entry.key() + "' is " + leaseState);
	}

	private record Change(TableEntry entry, LeaseState state) {
	}

}
