package dev.zklock.core.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;

/**
 * The ZooKeeper node through which this JVM holds a key: it belongs to the key's entry
 * ({@link TableEntry}), not to a thread, so it can pass from one local holder to the
 * next.
 */
public final class HeldNode {

	private static final String SESSION_EXPIRED = "the ZooKeeper session expired";

	private static final String NODE_DELETED = "another client deleted its node";

	private final String nodePath;

	private final long fencingToken;

	private final long sessionId;

	/** Written under {@link #stateLock}. */
	private volatile LeaseState state = LeaseState.HELD;

	/**
	 * What made the node {@link LeaseState#LOST}, once it is. Written under
	 * {@link #stateLock}.
	 */
	private volatile String lostBecause = SESSION_EXPIRED;

	private final ReentrantLock stateLock = new ReentrantLock();

	/** Set once someone wrote Curator's revocation request into the node. */
	private volatile boolean revocationRequested;

	/**
	 * Makes a listener's registration and the request's arrival exclusive, so that every
	 * listener is told exactly once.
	 */
	private final ReentrantLock revocationLock = new ReentrantLock();

	/**
	 * Told of a revocation request: by holder, so that each hold's end removes its own.
	 */
	private final List<Revocable> revocationListeners = new CopyOnWriteArrayList<>();

	/** Whether the node's data is watched for a revocation request. */
	private final AtomicBoolean revocationWatched = new AtomicBoolean();

	HeldNode(String nodePath, long fencingToken, long sessionId) {
		this.nodePath = nodePath;
		this.fencingToken = fencingToken;
		this.sessionId = sessionId;
	}

	public String nodePath() {
		return this.nodePath;
	}

	public long fencingToken() {
		return this.fencingToken;
	}

	public long sessionId() {
		return this.sessionId;
	}

	public LeaseState state() {
		return this.state;
	}

	public boolean isRevocationRequested() {
		return this.revocationRequested;
	}

	/**
	 * Add a listener for a revocation request on behalf of a holder; told at once if one
	 * came already.
	 * @return whether the node's data must now be watched: the first listener arms the
	 * watch
	 */
	boolean addRevocationListener(Holder holder, Runnable listener) {
		boolean requested;
		this.revocationLock.lock();
		try {
			this.revocationListeners.add(new Revocable(holder, listener));
			requested = this.revocationRequested;
		}
		finally {
			this.revocationLock.unlock();
		}
		if (requested) {
			listener.run();
		}
		return watchRevocation();
	}

	/**
	 * Whether the node's data must now be watched for a revocation request: {@code true}
	 * once per node, for the first listener or the first linger.
	 */
	boolean watchRevocation() {
		// Read first: a lingering node passes here at every release
		return !this.revocationWatched.get() && this.revocationWatched.compareAndSet(false, true);
	}

	/**
	 * Forget the listeners of a holder whose hold ended.
	 */
	public void removeRevocationListeners(Holder holder) {
		if (this.revocationListeners.isEmpty()) {
			// Every release passes here; most holds never listened
			return;
		}
		this.revocationListeners.removeIf((revocable) -> revocable.holder().equals(holder));
	}

	/**
	 * Note a revocation request and tell the listeners, once.
	 * @return the listeners to tell, empty if it was known already
	 */
	List<Runnable> revocationRequested() {
		this.revocationLock.lock();
		try {
			if (this.revocationRequested) {
				return List.of();
			}
			this.revocationRequested = true;
			return this.revocationListeners.stream().map(Revocable::listener).toList();
		}
		finally {
			this.revocationLock.unlock();
		}
	}

	/**
	 * Move to a new state; LOST is final. Returns whether the state changed.
	 */
	boolean transition(LeaseState to) {
		this.stateLock.lock();
		try {
			if (this.state == to || this.state == LeaseState.LOST) {
				return false;
			}
			this.state = to;
			return true;
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * Become {@link LeaseState#LOST} because another client deleted the node. Returns
	 * whether the state changed.
	 */
	public boolean loseDeleted() {
		this.stateLock.lock();
		try {
			if (this.state == LeaseState.LOST) {
				return false;
			}
			this.lostBecause = NODE_DELETED;
			this.state = LeaseState.LOST;
			return true;
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * What made the node {@link LeaseState#LOST}: its session expired, or another client
	 * deleted its node.
	 */
	String lostBecause() {
		return this.lostBecause;
	}

	/**
	 * What made the node {@link LeaseState#LOST}, or {@code null} while it is not lost.
	 */
	public @Nullable String lostBecauseIfLost() {
		return (this.state == LeaseState.LOST) ? this.lostBecause : null;
	}

	private record Revocable(Holder holder, Runnable listener) {
	}

}
