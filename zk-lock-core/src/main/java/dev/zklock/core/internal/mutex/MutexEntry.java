package dev.zklock.core.internal.mutex;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.apache.curator.utils.ZKPaths;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.ZkLease;
import dev.zklock.core.internal.Acquisition;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.NodeNames;
import dev.zklock.core.internal.RemoteWaiterMark;
import dev.zklock.core.internal.TableEntry;

/**
 * This JVM's state for one key: the local FIFO queue of threads (or leases) that want it,
 * the one that holds it, and the ZooKeeper {@link HeldNode} the holder uses.
 *
 * <p>
 * The local slot is granted, never grabbed: a releasing holder hands the slot, and with
 * it possibly the node, to the head of the queue under the entry's state lock. So a
 * waiter that times out either was granted (and holds) or was never granted (and leaves
 * the queue); no node can be left with nobody to release it.
 *
 * <p>
 * With a {@link Linger}, the last local holder's release may keep the node instead of
 * deleting it: the entry then <em>lingers</em> (no holder, a node). The next local
 * acquisition takes the kept node as if handed off; a child event on the lock path, a
 * revocation request, the linger's end or the registry's close deletes the node.
 *
 * <p>
 * The waiter granted is woken only once the state lock is released: woken under it, the
 * new holder could run at once and block on the state lock for its own release, a second
 * park and wake-up on every hand-off while arrivals queue up on the state lock behind it.
 */
public final class MutexEntry extends TableEntry {

	/**
	 * Guards the queue, the holder and the node. A {@link ReentrantLock}, not a monitor:
	 * a virtual thread that waits on a monitor pins its carrier before JDK 24.
	 */
	private final ReentrantLock stateLock = new ReentrantLock();

	/** Who holds the local slot, and who waits for it. Guarded by stateLock. */
	private final SlotQueue slots = new SlotQueue();

	/** The ZooKeeper node this JVM holds for the key; guarded by stateLock for writes. */
	private volatile @Nullable HeldNode node;

	/**
	 * Whether another participant may queue behind our node, and the hand-offs made since
	 * it was seen; its compound changes are made under stateLock.
	 */
	private final RemoteWaiterMark mark = new RemoteWaiterMark();

	/** Sends a list of the held node with the child watch, to settle the mark. */
	private final MutexEngine mutex;

	/**
	 * The linger of this entry's node; null when lingering is off. Guarded by stateLock.
	 */
	private final @Nullable EntryLinger linger;

	/**
	 * Set when the registry closes: no slot is granted any more. Written under stateLock.
	 */
	private volatile boolean closed;

	/** The thread acquiring the key in ZooKeeper for the head of the queue, if any. */
	private volatile @Nullable Thread acquirer;

	/** The holding thread, for the reentrant fast path; null for leases. */
	private volatile @Nullable Thread ownerThread;

	/** Reentrant holds of the owner thread; only the owner thread touches it. */
	private int holds;

	private volatile @Nullable Instant heldSince;

	MutexEntry(String key, String path, @Nullable Linger linger, MutexEngine mutex) {
		super(key, path);
		this.linger = (linger != null) ? new EntryLinger(linger, this) : null;
		this.mutex = mutex;
	}

	@Override
	public void childrenChanged() {
		noteRemoteWaiter();
	}

	@Override
	public void connectionDown() {
		noteUnwatched();
	}

	/**
	 * Someone asked for a node back: if it lingers, nobody holds it to decide, so it
	 * goes.
	 */
	@Override
	public void revocationRequested(HeldNode node) {
		endLingerOf(node);
	}

	@Override
	public void noteRemoteWaiter() {
		this.mark.seen();
		endLingerOnMark();
	}

	@Override
	public void noteUnwatched() {
		this.mark.unwatched();
		endLingerOnMark();
	}

	/**
	 * Told, on the client's event thread, that other code on the client removed the child
	 * watch on the lock path: a participant that queues behind the held node fires
	 * nothing now. Counted as queued, as for a node listed without the watch, and listed
	 * again with it at once if threads of this JVM queue for the node.
	 */
	@Override
	public void childWatchRemoved() {
		noteUnwatched();
		settleUnwatched();
	}

	/**
	 * The mark was just raised, before the state lock is taken: a thread re-locking the
	 * key in a loop sees it at its next reuse and deletes, even while it keeps this
	 * thread off the state lock. A release that read it clear lingered before this takes
	 * the state lock, and is ended here.
	 */
	private void endLingerOnMark() {
		if (this.linger != null) {
			endLinger();
		}
	}

	@Override
	public void noRemoteWaiter() {
		this.mark.clear();
	}

	/**
	 * Send a list of the held node's lock path with the child watch, if the mark stands
	 * only for want of a watch and threads of this JVM queue for the node. Without it,
	 * they would make way, after {@code maxLocalHandoffs} hand-offs, for a participant
	 * nobody has seen: the node would go, and the next thread take a new one (two writes
	 * and a list) while the rest of the queue waits. The list costs one read, and its
	 * reply either shows who queues (the bound then applies to the hand-offs made
	 * meanwhile too) or clears the mark, its watch telling of the next.
	 */
	private void settleUnwatched() {
		if (!this.mark.isWatchMissing()) {
			return;
		}
		HeldNode held;
		this.stateLock.lock();
		try {
			held = this.node;
			if (held == null || !this.slots.isHeld() || !this.slots.hasWaiters() || !this.mark.startListing(held)) {
				return;
			}
		}
		finally {
			this.stateLock.unlock();
		}
		this.mutex.listHeldNode(this, held);
	}

	/**
	 * Told, on the client's event thread, the children listed with the watch for
	 * {@code held} by {@link #settleUnwatched}: the mark is cleared if nobody queues
	 * behind the node and nobody was seen since the list was sent.
	 */
	void heldNodeListed(HeldNode held, List<String> children) {
		List<String> queue = NodeNames.inQueueOrder(children);
		int ours = queue.indexOf(ZKPaths.getNodeFromPath(held.nodePath()));
		// Our node missing from its own list: nothing can be ruled out
		boolean others = ours < 0 || LockDriver.MUTEX.othersWaitBehind(queue, ours);
		this.stateLock.lock();
		try {
			this.mark.listed(held, this.node == held, others);
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * The list for {@code held} failed, or would change nothing (no local hand-off at
	 * all): the mark stays, and the bound applies from now on, without another list for
	 * this node.
	 */
	void heldNodeListFailed(HeldNode held) {
		this.stateLock.lock();
		try {
			this.mark.listFailed(held);
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * Only a node that may pass to a local waiter or linger needs to hear who queues
	 * behind it. Without a linger, a node listed while threads of this JVM do not take
	 * turns on the key (none waits, and its holder did not wait for it) goes without the
	 * watch, which would otherwise fire at our own delete on every uncontended release
	 * (and, after a wait behind another participant, need a list of its own). A local
	 * thread that queues for it later finds the flag raised for want of the watch, and
	 * the node is listed again with it ({@link #settleUnwatched}).
	 */
	@Override
	public boolean needsChildWatch() {
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

	@Nullable Thread ownerThread() {
		return this.ownerThread;
	}

	public @Nullable HeldNode node() {
		return this.node;
	}

	@Nullable Instant heldSince() {
		return this.heldSince;
	}

	/** Only the owner thread calls this. */
	int incrementHolds() {
		if (this.holds == Integer.MAX_VALUE) {
			// As ReentrantLock does: wrapping around would let one unlock() release the
			// lock
			throw new Error("Maximum lock count exceeded");
		}
		return ++this.holds;
	}

	/** Only the owner thread calls this. */
	int decrementHolds() {
		return --this.holds;
	}

	/**
	 * Set the owner thread's hold count, for tests only ({@code HoldCountTests}): 2^31 -
	 * 1 nested holds would take a minute to make one by one. Only the owner thread calls
	 * this.
	 */
	void holdsForTests(int holds) {
		this.holds = holds;
	}

	@Override
	public boolean isHeld() {
		return this.heldSince != null;
	}

	/**
	 * Take the local slot for {@code who}, waiting in FIFO order until the deadline.
	 * @return how it ended
	 */
	Slot acquireSlot(Holder who, Deadline deadline, Interrupts interrupts) throws InterruptedException {
		SlotWaiter waiter;
		EntryLinger linger = this.linger;
		// Read outside the state lock: it asks Curator, which may take its own locks
		long reuseSession = (linger != null && this.node != null) ? linger.linger().sessionIfConnected() : 0;
		this.stateLock.lock();
		try {
			if (this.closed) {
				return Slot.CLOSED;
			}
			if (this.slots.isFree()) {
				this.slots.take(who);
				HeldNode kept = this.node;
				if (kept != null) {
					if (isReusable(kept, reuseSession)) {
						markHeld(who);
						return Slot.HANDED_OFF;
					}
					endLinger(kept);
				}
				return Slot.GRANTED;
			}
			if (deadline.isExpired()) {
				return Slot.TIMED_OUT;
			}
			waiter = this.slots.enqueue(who);
		}
		finally {
			this.stateLock.unlock();
		}
		deadline.queuedBehind(LockAcquisitionException.Reason.HELD_LOCALLY, "queued behind another holder in this JVM");
		settleUnwatched();
		return waiter.await(this, deadline, interrupts);
	}

	/**
	 * Grant no slot any more: every waiter in the queue leaves it with
	 * {@link Slot#CLOSED}, and the thread acquiring in ZooKeeper is woken to notice. The
	 * holder keeps its hold.
	 */
	@Override
	public void close() {
		boolean ended;
		this.stateLock.lock();
		try {
			this.closed = true;
			ended = endLingerIfLingering();
			this.slots.close();
		}
		finally {
			this.stateLock.unlock();
		}
		retireIf(ended);
		Thread thread = this.acquirer;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	@Override
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Note the thread that acquires in ZooKeeper for the head of the queue, so that
	 * {@link #close()} can wake it; {@code null} when it is done.
	 */
	void acquiring(@Nullable Thread thread) {
		this.acquirer = thread;
	}

	/**
	 * Leave the queue unless already granted. Returns whether we left.
	 */
	boolean leaveQueue(SlotWaiter waiter) {
		this.stateLock.lock();
		try {
			return this.slots.leave(waiter);
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * Record the newly acquired node and the holder.
	 */
	void held(Holder who, HeldNode newNode) {
		this.stateLock.lock();
		try {
			this.node = newNode;
			if (this.linger != null) {
				this.linger.nodeTaken();
			}
			this.mark.resetCount();
			markHeld(who);
		}
		finally {
			this.stateLock.unlock();
		}
		// Threads that queued while the node was acquired found no node to list for
		settleUnwatched();
	}

	/** Guarded by stateLock. */
	private void markHeld(Holder who) {
		this.ownerThread = who.thread();
		this.holds = 1;
		this.heldSince = Instant.now();
	}

	/**
	 * Give up the local slot: pass it to the next waiter, with the node if hand-off is
	 * allowed, else delete the node first. A node passes on only while it is {@code HELD}
	 * on the client's current session: one of a session the client has left is never
	 * handed out, even before the event that reports it lost.
	 */
	Release releaseSlot(Holder who, int maxLocalHandoffs, long currentSession, Engine engine) {
		EntryLinger linger = this.linger;
		long lingerSession = (linger != null) ? linger.linger().sessionIfConnected() : 0;
		SlotWaiter granted = null;
		HeldNode kept = null;
		Release release;
		this.stateLock.lock();
		try {
			if (!this.slots.isHeldBy(who)) {
				throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by " + who);
			}
			HeldNode current = this.node;
			if (current != null) {
				current.removeRevocationListeners(who);
			}
			SlotWaiter next = this.slots.next();
			CompletableFuture<Void> delete = null;
			boolean handedOff = false;
			if (current != null) {
				handedOff = this.mark.tryPass(current, maxLocalHandoffs, next != null && maxLocalHandoffs > 0
						&& current.state() == LeaseState.HELD && current.sessionId() == currentSession);
				// Else the node passes on with the slot
				if (!handedOff) {
					if (next == null && linger != null && !this.closed && isReusable(current, lingerSession)
							&& linger.start()) {
						// Kept: the next local acquisition reuses it, another
						// participant or a revocation request ends it
						kept = current;
					}
					else {
						this.node = null;
						this.mark.resetCount();
						// Sent before the next waiter's create: one session's requests
						// are applied in order
						delete = engine.deleteNode(current.nodePath());
					}
				}
			}
			this.ownerThread = null;
			this.heldSince = null;
			this.holds = 0;
			if (next != null && handedOff) {
				// The next holder holds from now: it returns without touching the state
				// lock again
				markHeld(next.who);
			}
			granted = this.slots.passOn(handedOff ? Slot.HANDED_OFF : Slot.GRANTED);
			release = new Release(current, delete, handedOff);
		}
		finally {
			this.stateLock.unlock();
			SlotQueue.wake(granted);
		}
		if (kept != null && linger != null) {
			// Outside the state lock: it may send a read
			linger.linger().watchRevocation(kept);
		}
		return release;
	}

	/**
	 * Whether a kept node may back a new hold: see {@link EntryLinger#mayReuse}; the
	 * child list that cleared the mark was the one that granted it, or one read again by
	 * {@link #settleUnwatched}. Guarded by stateLock.
	 * @param connectedSession the client's session if connected, else 0
	 */
	private boolean isReusable(HeldNode kept, long connectedSession) {
		EntryLinger linger = this.linger;
		return linger != null && linger.mayReuse(kept, connectedSession, this.mark.isRaised());
	}

	/**
	 * The linger timer: end the linger if it is over, else look again when it should be.
	 */
	void lingerTimerFired() {
		EntryLinger linger = this.linger;
		if (linger == null) {
			return;
		}
		boolean ended = false;
		this.stateLock.lock();
		try {
			linger.timerFired();
			if (lingers() && linger.timerFiredWhileLingering()) {
				ended = endLingerIfLingering();
			}
		}
		finally {
			this.stateLock.unlock();
		}
		retireIf(ended);
	}

	/** Whether the entry keeps a node nobody holds. Guarded by stateLock. */
	private boolean lingers() {
		return !this.slots.isHeld() && this.node != null;
	}

	@Override
	public boolean isLingering() {
		this.stateLock.lock();
		try {
			return lingers();
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * Delete the kept node, if the entry lingers. Guarded by stateLock.
	 * @return whether a linger ended, so that the entry may now be idle
	 */
	private boolean endLingerIfLingering() {
		HeldNode kept = this.node;
		if (this.slots.isHeld() || kept == null) {
			return false;
		}
		endLinger(kept);
		return true;
	}

	/** Guarded by stateLock. */
	private void endLinger(HeldNode kept) {
		this.node = null;
		this.mark.resetCount();
		EntryLinger linger = this.linger;
		if (linger != null) {
			linger.end(kept);
		}
	}

	/** A linger ended: let the entry leave its table if nobody uses it. */
	private void retireIf(boolean lingerEnded) {
		EntryLinger linger = this.linger;
		if (lingerEnded && linger != null) {
			linger.linger().retire(this);
		}
	}

	/**
	 * Under the state lock, so that a linger's re-take cannot come between the test and
	 * the change: a node that lingers is lost unheard, and its linger ends.
	 */
	@Override
	public boolean loseDeletedNode(HeldNode deleted) {
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
	 * Delete the kept node now, if the entry lingers.
	 */
	void endLinger() {
		endLingerOf(null);
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
	 * Leave the table only if idle at the moment of the count's change: a lingering entry
	 * becomes idle without a user, so the check and the change are made under the state
	 * lock that every linger's start and end take.
	 */
	@Override
	public boolean tryRetire() {
		this.stateLock.lock();
		try {
			return super.tryRetire();
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * Move the hold of the owner thread, held once, to another holder (a
	 * {@link ZkLease}): the slot, the node and the hold time carry over, only who holds
	 * changes.
	 */
	void transfer(Thread from, Holder to) {
		this.stateLock.lock();
		try {
			if (!this.slots.isHeldBy(Holder.thread(from)) || this.ownerThread != from) {
				throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by " + from.getName());
			}
			if (this.holds != 1) {
				throw new IllegalStateException("Lock '" + key() + "' is held " + this.holds + " times by "
						+ from.getName() + "; only an outermost hold can be handed to a lease");
			}
			this.slots.transfer(to);
			this.ownerThread = null;
			this.holds = 0;
			HeldNode current = this.node;
			if (current != null) {
				current.removeRevocationListeners(Holder.thread(from));
			}
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * Whether a thread holds the entry exactly once: its hold could be handed to a lease.
	 */
	boolean isHeldOnceBy(Thread thread) {
		return this.ownerThread == thread && this.holds == 1;
	}

	/**
	 * Give up the slot after a failed acquisition: no node was taken, the next waiter
	 * tries.
	 */
	void abandonSlot(Holder who) {
		SlotWaiter granted = null;
		this.stateLock.lock();
		try {
			if (!this.slots.isHeldBy(who)) {
				return;
			}
			granted = this.slots.passOn(Slot.GRANTED);
		}
		finally {
			this.stateLock.unlock();
			SlotQueue.wake(granted);
		}
	}

	@Override
	public boolean isIdle() {
		this.stateLock.lock();
		try {
			return this.slots.isFree() && this.node == null;
		}
		finally {
			this.stateLock.unlock();
		}
	}

	@Override
	public void forEachHeldNode(Consumer<HeldNode> action) {
		HeldNode current = this.node;
		if (current != null) {
			action.accept(current);
		}
	}

	@Override
	public LocalLockInfo info() {
		// One snapshot: a lingering node is one no holder uses. A semaphore's guard is
		// the semaphore's, not an exclusive lock of the key
		this.stateLock.lock();
		try {
			Thread owner = this.ownerThread;
			boolean held = isHeld();
			return snapshot(held, (owner != null) ? owner.getName() : null, this.heldSince, this.node,
					this.slots.isPermitGuard() ? LockKind.SEMAPHORE : LockKind.EXCLUSIVE, held ? 1 : 0, 0, lingers());
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * What a release did.
	 *
	 * @param node the node that backed the hold, if any
	 * @param delete the first try to delete its node, if it was released in ZooKeeper
	 * @param handedOff whether the node passed to the next local waiter
	 */
	record Release(@Nullable HeldNode node, @Nullable CompletableFuture<Void> delete, boolean handedOff) {
	}

}
