package dev.zklock.core.internal.mutex;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.RemoteWaiterMark;

/**
 * An exclusive entry's node and its life cycle: taken in ZooKeeper by the head of the
 * slot queue, passed from holder to holder, kept by a linger when the last local holder
 * releases it, and deleted. What may end it is here too: the mark that other JVMs'
 * waiters raise ({@link RemoteWaiterMark}), which bounds the hand-offs, ends a linger,
 * and is settled by a {@link MarkSettler} when it stands only for want of a watch; and
 * the linger's decisions ({@link EntryLinger}).
 *
 * <p>
 * It shares the entry's state lock: the entry calls the methods that say so under it,
 * together with its change of the slot queue; the others, told by the client's event
 * thread or the linger timer, take it themselves, and every wake-up and request that may
 * take Curator's own locks comes after it is released.
 */
final class EntryNode {

	private final MutexEntry entry;

	/** The entry's state lock: guards the queue, the node and the mark's count. */
	private final ReentrantLock stateLock;

	/**
	 * The entry's slot queue, only read here: the entry lingers while nobody holds it.
	 */
	private final SlotQueue slots;

	/** The node this JVM holds for the key; written under the state lock. */
	private volatile @Nullable HeldNode node;

	/**
	 * Whether another participant may queue behind our node, and the hand-offs made since
	 * it was seen; its compound changes are made under the state lock.
	 */
	private final RemoteWaiterMark mark = new RemoteWaiterMark();

	/** Lists the held node again with the child watch when the mark needs it. */
	private final MarkSettler settler;

	/** The linger of the node; null when lingering is off. Guarded by the state lock. */
	private final @Nullable EntryLinger linger;

	EntryNode(MutexEntry entry, ReentrantLock stateLock, SlotQueue slots, @Nullable Linger linger, Engine engine) {
		this.entry = entry;
		this.stateLock = stateLock;
		this.slots = slots;
		this.linger = (linger != null) ? new EntryLinger(linger, this) : null;
		this.settler = new MarkSettler(this, stateLock, slots, this.mark, engine);
	}

	@Nullable HeldNode node() {
		return this.node;
	}

	MutexEntry entry() {
		return this.entry;
	}

	String path() {
		return this.entry.path();
	}

	/**
	 * The client's session while it is connected, if a linger could reuse the node, else
	 * 0. Read outside the state lock: it asks Curator, which may take its own locks.
	 */
	long sessionToReuse() {
		EntryLinger linger = this.linger;
		return (linger != null) ? linger.sessionIfConnected() : 0;
	}

	/**
	 * The slot was just taken at once: reuse the kept node, if the entry lingers on one
	 * that may back a new hold, else end its linger. Under the state lock.
	 * @param connectedSession the client's session if connected, else 0
	 * @return whether the kept node backs the new hold
	 */
	boolean reuse(long connectedSession) {
		HeldNode kept = this.node;
		if (kept == null) {
			return false;
		}
		EntryLinger linger = this.linger;
		if (linger != null && linger.mayReuse(kept, connectedSession, this.mark.isRaised())) {
			return true;
		}
		endLinger(kept);
		return false;
	}

	/** The head of the queue took a new node in ZooKeeper. Under the state lock. */
	void taken(HeldNode newNode) {
		this.node = newNode;
		if (this.linger != null) {
			this.linger.nodeTaken();
		}
		this.mark.resetCount();
	}

	/**
	 * The holder lets go of the slot: the node passes on with it to the next waiter if
	 * hand-off is allowed, else lingers if nobody waits, else is deleted, sent before the
	 * next waiter's create. A node passes on only while it is {@code HELD} on the
	 * client's current session: one of a session the client has left is never handed out,
	 * even before the event that reports it lost. Under the state lock.
	 * @param nextWaits whether a waiter is next in the queue
	 * @param closed whether the registry closed
	 * @param lingerSession the client's session if connected, else 0
	 */
	Release letGo(boolean nextWaits, int maxLocalHandoffs, long currentSession, boolean closed, long lingerSession,
			Engine engine) {
		HeldNode current = this.node;
		if (current == null) {
			return new Release(null, null, false, false);
		}
		boolean handedOff = this.mark.tryPass(current, maxLocalHandoffs, nextWaits && maxLocalHandoffs > 0
				&& current.state() == LeaseState.HELD && current.sessionId() == currentSession);
		if (handedOff) {
			return new Release(current, null, true, false);
		}
		EntryLinger linger = this.linger;
		if (!nextWaits && linger != null && !closed && linger.keep(current, lingerSession, this.mark.isRaised())) {
			// Kept: the next local acquisition reuses it, another participant or a
			// revocation request ends it
			return new Release(current, null, false, true);
		}
		this.node = null;
		this.mark.resetCount();
		// Sent before the next waiter's create: one session's requests are applied in
		// order
		return new Release(current, engine.deleteNode(current.nodePath()), false, false);
	}

	/**
	 * After the state lock is released: a node that started to linger has its data
	 * watched for a revocation request (it may send a read).
	 */
	void released(Release release) {
		HeldNode kept = release.node();
		if (release.kept() && kept != null && this.linger != null) {
			this.linger.kept(kept);
		}
	}

	/**
	 * Send a list of the held node with the child watch, if the mark stands only for want
	 * of one and threads of this JVM queue for the node. Outside the state lock.
	 */
	void settle() {
		this.settler.settle();
	}

	/**
	 * A participant was seen behind the node: a child event, or a list showing one.
	 */
	void noteRemoteWaiter() {
		this.mark.seen();
		endLingerOnMark();
	}

	/**
	 * A participant may queue behind the node unheard: the child watch is missing.
	 */
	void noteUnwatched() {
		this.mark.unwatched();
		endLingerOnMark();
	}

	/**
	 * The mark was just raised, before the state lock is taken: a thread re-locking the
	 * key in a loop sees it at its next reuse and deletes, even while it keeps this
	 * thread off the state lock. A release that read it clear lingered before this takes
	 * the state lock, and is ended here.
	 */
	private void endLingerOnMark() {
		if (this.linger != null) {
			endLingerOf(null);
		}
	}

	/** The last child list showed no other participant, and armed the watch. */
	void noRemoteWaiter() {
		this.mark.clear();
	}

	/**
	 * Only a node that may pass to a local waiter or linger needs to hear who queues
	 * behind it. Without a linger, a node listed while threads of this JVM do not take
	 * turns on the key (none waits, and its holder did not wait for it) goes without the
	 * watch, which would otherwise fire at our own delete on every uncontended release
	 * (and, after a wait behind another participant, need a list of its own). A local
	 * thread that queues for it later finds the flag raised for want of the watch, and
	 * the node is listed again with it ({@link MarkSettler}).
	 */
	boolean needsChildWatch() {
		if (this.linger != null) {
			return true;
		}
		this.stateLock.lock();
		try {
			return this.slots.takesTurns();
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/** Whether the entry keeps a node nobody holds. Under the state lock. */
	boolean lingers() {
		return !this.slots.isHeld() && this.node != null;
	}

	/** Whether the entry keeps a node nobody holds, at this moment. */
	boolean isLingering() {
		this.stateLock.lock();
		try {
			return lingers();
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * The linger timer: end the linger if it is over, else look again when it should be.
	 */
	void lingerTimerFired() {
		EntryLinger linger = this.linger;
		if (linger == null) {
			return;
		}
		boolean ended;
		this.stateLock.lock();
		try {
			ended = linger.timerFired(lingers()) && endLingerIfLingering();
		}
		finally {
			this.stateLock.unlock();
		}
		retireIf(ended);
	}

	/**
	 * Delete the kept node now, if the entry lingers on it.
	 * @param only the node to end the linger of; {@code null} for whichever
	 */
	void endLingerOf(@Nullable HeldNode only) {
		if (this.linger == null) {
			return;
		}
		boolean ended;
		this.stateLock.lock();
		try {
			ended = (only == null || this.node == only) && endLingerIfLingering();
		}
		finally {
			this.stateLock.unlock();
		}
		retireIf(ended);
	}

	/**
	 * Make {@code deleted} lost if it is the node: under the state lock, so that a
	 * linger's re-take cannot come between the test and the change. A node that lingers
	 * is lost unheard, and its linger ends.
	 * @return whether a hold was lost
	 */
	boolean loseDeleted(HeldNode deleted) {
		boolean ended;
		this.stateLock.lock();
		try {
			if (this.node != deleted || !deleted.loseDeleted()) {
				return false;
			}
			ended = endLingerIfLingering();
		}
		finally {
			this.stateLock.unlock();
		}
		retireIf(ended);
		return !ended;
	}

	/**
	 * Delete the kept node, if the entry lingers. Under the state lock.
	 * @return whether a linger ended, so that the entry may now be idle: the caller
	 * {@link #retireIf retires} it once the state lock is released
	 */
	boolean endLingerIfLingering() {
		HeldNode kept = this.node;
		if (this.slots.isHeld() || kept == null) {
			return false;
		}
		endLinger(kept);
		return true;
	}

	/** Under the state lock. */
	private void endLinger(HeldNode kept) {
		this.node = null;
		this.mark.resetCount();
		EntryLinger linger = this.linger;
		if (linger != null) {
			linger.end(kept);
		}
	}

	/**
	 * A linger ended: let the entry leave its table if nobody uses it. Outside the state
	 * lock.
	 */
	void retireIf(boolean lingerEnded) {
		EntryLinger linger = this.linger;
		if (lingerEnded && linger != null) {
			linger.ended();
		}
	}

	/**
	 * What a release did.
	 *
	 * @param node the node that backed the hold, if any
	 * @param delete the first try to delete its node, if it was released in ZooKeeper
	 * @param handedOff whether the node passed to the next local waiter
	 * @param kept whether the node lingers
	 */
	record Release(@Nullable HeldNode node, @Nullable CompletableFuture<Void> delete, boolean handedOff, boolean kept) {
	}

}
