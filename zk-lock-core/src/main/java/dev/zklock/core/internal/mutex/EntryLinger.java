package dev.zklock.core.internal.mutex;

import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.internal.HeldNode;

/**
 * The linger life cycle of one entry's node: whether a released node may be kept, whether
 * a kept node may back a new hold, when its linger ends (its timer), and what follows its
 * end. Whether the entry lingers at all (no holder, a node) is its {@link EntryNode}'s to
 * say, which acts on each decision under the entry's state lock: this class only says
 * what to do, and keeps the timer.
 *
 * <p>
 * A node lingers from the release that keeps it ({@link #keep}) until the next local
 * acquisition reuses it ({@link #mayReuse}), or its linger ends ({@link #end}): on its
 * timer, on a participant of another JVM seen or a watch missing, on a revocation
 * request, on its loss, or on the registry's close. A kept node is renewed after
 * {@link Linger#RENEW_AFTER} of reuse, however often it is reused.
 *
 * <p>
 * Every method runs under the entry's state lock, save those that say otherwise: those
 * may ask Curator or send a request, which may take Curator's own locks.
 */
final class EntryLinger {

	private final Linger linger;

	/** The node whose linger this is: its timer checks on it. */
	private final EntryNode node;

	/** When the entry's node was taken, in {@link System#nanoTime()}. */
	private long nodeSince;

	/** When the current linger ends, in {@link System#nanoTime()}. */
	private long ends;

	/** The linger timer, if one is scheduled. */
	private @Nullable ScheduledFuture<?> timer;

	EntryLinger(Linger linger, EntryNode node) {
		this.linger = linger;
		this.node = node;
	}

	/**
	 * The client's session while it is connected, else 0: a kept node is reused only
	 * then. Called outside the state lock.
	 */
	long sessionIfConnected() {
		return this.linger.sessionIfConnected();
	}

	/** The entry took a new node in ZooKeeper. */
	void nodeTaken() {
		this.nodeSince = System.nanoTime();
	}

	/**
	 * Whether a kept node may back a new hold: no other participant seen queueing and no
	 * connection loss seen since the last child list read for it with the watch
	 * ({@code remoteWaiting} clear: the list that granted it, or one read again by the
	 * entry's {@link MarkSettler}), held on the session the client is connected with, not
	 * asked for back, and not kept past the renewal bound.
	 * @param connectedSession the client's session if connected, else 0
	 */
	boolean mayReuse(HeldNode kept, long connectedSession, boolean remoteWaiting) {
		return !remoteWaiting && connectedSession != 0 && kept.state() == LeaseState.HELD
				&& kept.sessionId() == connectedSession && !kept.isRevocationRequested()
				&& System.nanoTime() - this.nodeSince < this.linger.renewAfterNanos();
	}

	/**
	 * The last local holder released {@code released}, and nobody of this JVM waits for
	 * it: keep it if it could back a new hold, and start or extend its linger.
	 * @param connectedSession the client's session if connected, else 0
	 * @param remoteWaiting whether the entry's mark is raised
	 * @return whether it lingers; if not, it must be deleted
	 */
	boolean keep(HeldNode released, long connectedSession, boolean remoteWaiting) {
		return mayReuse(released, connectedSession, remoteWaiting) && start();
	}

	/**
	 * Start or extend the linger of the node just released.
	 * @return whether it lingers; if no timer could be scheduled, it must be deleted
	 */
	private boolean start() {
		this.ends = System.nanoTime() + this.linger.nanos();
		if (this.timer == null) {
			try {
				this.timer = this.linger.schedule(this.node, this.linger.nanos());
			}
			catch (RuntimeException ex) {
				// The timer is shut down or cannot start a thread: no linger without an
				// end
				return false;
			}
		}
		return true;
	}

	/**
	 * A node started to linger: a revocation request must end the linger, so its data is
	 * watched from its first linger on (one read, not waited for). Called outside the
	 * state lock.
	 */
	void kept(HeldNode kept) {
		this.linger.watchRevocation(kept);
	}

	/**
	 * The timer fired: none is scheduled now. If the entry still lingers, look again when
	 * the linger should end, if it was extended meanwhile.
	 * @param lingering whether the entry lingers
	 * @return whether the linger is over (its end passed, or no timer could be
	 * scheduled), so that the entry ends it
	 */
	boolean timerFired(boolean lingering) {
		this.timer = null;
		if (!lingering) {
			return false;
		}
		long remaining = this.ends - System.nanoTime();
		if (remaining <= 0) {
			return true;
		}
		try {
			this.timer = this.linger.schedule(this.node, remaining);
			return false;
		}
		catch (RuntimeException ex) {
			return true;
		}
	}

	/**
	 * The linger ended: cancel the timer (let go of the entry now rather than at the
	 * deadline) and delete the kept node.
	 */
	void end(HeldNode kept) {
		ScheduledFuture<?> timer = this.timer;
		if (timer != null) {
			timer.cancel(false);
			this.timer = null;
		}
		this.linger.delete(kept);
	}

	/**
	 * A linger ended: let the entry leave its table if nobody uses it. Called outside the
	 * state lock.
	 */
	void ended() {
		this.linger.retire(this.node.entry());
	}

}
