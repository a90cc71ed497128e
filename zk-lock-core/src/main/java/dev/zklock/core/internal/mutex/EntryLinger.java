package dev.zklock.core.internal.mutex;

import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.internal.HeldNode;

/**
 * The linger of one entry: when the node it keeps was taken (a kept node is renewed after
 * {@link Linger#RENEW_AFTER}), when its linger ends, and its timer. Whether the entry
 * lingers at all (no holder, a node) is the entry's to say; every method here runs under
 * the entry's state lock.
 */
final class EntryLinger {

	private final Linger linger;

	private final MutexEntry entry;

	/** When the entry's node was taken, in {@link System#nanoTime()}. */
	private long nodeSince;

	/** When the current linger ends, in {@link System#nanoTime()}. */
	private long ends;

	/** The linger timer, if one is scheduled. */
	private @Nullable ScheduledFuture<?> timer;

	EntryLinger(Linger linger, MutexEntry entry) {
		this.linger = linger;
		this.entry = entry;
	}

	Linger linger() {
		return this.linger;
	}

	/** The entry took a new node in ZooKeeper. */
	void nodeTaken() {
		this.nodeSince = System.nanoTime();
	}

	/**
	 * Whether a kept node may back a new hold: no other participant seen queueing and no
	 * connection loss seen since the last child list read for it with the watch
	 * ({@code remoteWaiting} clear), held on the session the client is connected with,
	 * not asked for back, and not kept past the renewal bound.
	 * @param connectedSession the client's session if connected, else 0
	 */
	boolean mayReuse(HeldNode kept, long connectedSession, boolean remoteWaiting) {
		return !remoteWaiting && connectedSession != 0 && kept.state() == LeaseState.HELD
				&& kept.sessionId() == connectedSession && !kept.isRevocationRequested()
				&& System.nanoTime() - this.nodeSince < this.linger.renewAfterNanos();
	}

	/**
	 * Start or extend the linger of the node just released.
	 * @return whether it lingers; if no timer could be scheduled, it must be deleted
	 */
	boolean start() {
		this.ends = System.nanoTime() + this.linger.nanos();
		if (this.timer == null) {
			try {
				this.timer = this.linger.schedule(this.entry, this.linger.nanos());
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
	 * The timer fired while the entry lingers: look again when the linger should end, if
	 * it was extended meanwhile.
	 * @return whether the linger is over (its end passed, or no timer could be scheduled)
	 */
	boolean timerFiredWhileLingering() {
		long remaining = this.ends - System.nanoTime();
		if (remaining <= 0) {
			return true;
		}
		try {
			this.timer = this.linger.schedule(this.entry, remaining);
			return false;
		}
		catch (RuntimeException ex) {
			return true;
		}
	}

	/** The timer fired: none is scheduled now. */
	void timerFired() {
		this.timer = null;
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

}
