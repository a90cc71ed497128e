package dev.zklock.core.internal.mutex;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.ZkLease;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Holder;
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
 * Two state machines share the state lock: the slot's, here with its {@link SlotQueue},
 * and the node's ({@link EntryNode}: hand-off, linger, and the reactions to other JVMs'
 * waiters). Each change of both, a hand-off say, is made in one hold of the lock.
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

	/** The ZooKeeper node this JVM holds for the key, and what may end it. */
	private final EntryNode entryNode;

	/**
	 * Set when the registry closes: no slot is granted any more. Written under stateLock.
	 */
	private volatile boolean closed;

	/** The thread acquiring the key in ZooKeeper for the head of the queue, if any. */
	private volatile @Nullable Thread acquirer;

	/** Since when the slot is held, and by which thread how many times. */
	private final SlotHold hold = new SlotHold();

	MutexEntry(String key, String path, @Nullable Linger linger, Engine engine) {
		super(key, path);
		this.entryNode = new EntryNode(this, this.stateLock, this.slots, linger, engine);
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
		this.entryNode.endLingerOf(node);
	}

	@Override
	public void noteRemoteWaiter() {
		this.entryNode.noteRemoteWaiter();
	}

	@Override
	public void noteUnwatched() {
		this.entryNode.noteUnwatched();
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
		this.entryNode.settle();
	}

	@Override
	public void noRemoteWaiter() {
		this.entryNode.noRemoteWaiter();
	}

	/** See {@link EntryNode#needsChildWatch()}. */
	@Override
	public boolean needsChildWatch() {
		return this.entryNode.needsChildWatch();
	}

	public @Nullable HeldNode node() {
		return this.entryNode.node();
	}

	/** The hold of the slot, for the reentrant fast path of its owner thread. */
	SlotHold hold() {
		return this.hold;
	}

	@Override
	public boolean isHeld() {
		return this.hold.isHeld();
	}

	/**
	 * Take the local slot for {@code who}, waiting in FIFO order until the deadline.
	 * @return how it ended
	 */
	Slot acquireSlot(Holder who, Deadline deadline, Interrupts interrupts) throws InterruptedException {
		SlotWaiter waiter;
		long reuseSession = (this.entryNode.node() != null) ? this.entryNode.sessionToReuse() : 0;
		this.stateLock.lock();
		try {
			if (this.closed) {
				return Slot.CLOSED;
			}
			if (this.slots.isFree()) {
				this.slots.take(who);
				if (this.entryNode.reuse(reuseSession)) {
					this.hold.take(who);
					return Slot.HANDED_OFF;
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
		this.entryNode.settle();
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
			ended = this.entryNode.endLingerIfLingering();
			this.slots.close();
		}
		finally {
			this.stateLock.unlock();
		}
		this.entryNode.retireIf(ended);
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
			this.entryNode.taken(newNode);
			this.hold.take(who);
		}
		finally {
			this.stateLock.unlock();
		}
		// Threads that queued while the node was acquired found no node to list for
		this.entryNode.settle();
	}

	/**
	 * Give up the local slot: pass it to the next waiter, with the node if hand-off is
	 * allowed, else keep the node lingering or delete it first ({@link EntryNode#letGo}).
	 */
	EntryNode.Release releaseSlot(Holder who, int maxLocalHandoffs, long currentSession, Engine engine) {
		long lingerSession = this.entryNode.sessionToReuse();
		SlotWaiter granted = null;
		EntryNode.Release release;
		this.stateLock.lock();
		try {
			if (!this.slots.isHeldBy(who)) {
				throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by " + who);
			}
			HeldNode current = this.entryNode.node();
			if (current != null) {
				current.removeRevocationListeners(who);
			}
			SlotWaiter next = this.slots.next();
			release = this.entryNode.letGo(next != null, maxLocalHandoffs, currentSession, this.closed, lingerSession,
					engine);
			this.hold.clear();
			if (next != null && release.handedOff()) {
				// The next holder holds from now: it returns without touching the state
				// lock again
				this.hold.take(next.who);
			}
			granted = this.slots.passOn(release.handedOff() ? Slot.HANDED_OFF : Slot.GRANTED);
		}
		finally {
			this.stateLock.unlock();
			SlotQueue.wake(granted);
		}
		this.entryNode.released(release);
		return release;
	}

	/**
	 * Under the state lock, so that a linger's re-take cannot come between the test and
	 * the change: a node that lingers is lost unheard, and its linger ends.
	 */
	@Override
	public boolean loseDeletedNode(HeldNode deleted) {
		return this.entryNode.loseDeleted(deleted);
	}

	@Override
	public boolean isLingering() {
		return this.entryNode.isLingering();
	}

	/**
	 * Delete the kept node now, if the entry lingers.
	 */
	void endLinger() {
		this.entryNode.endLingerOf(null);
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
			if (!this.slots.isHeldBy(Holder.thread(from)) || this.hold.ownerThread() != from) {
				throw new IllegalMonitorStateException("Lock '" + key() + "' is not held by " + from.getName());
			}
			if (this.hold.count() != 1) {
				throw new IllegalStateException("Lock '" + key() + "' is held " + this.hold.count() + " times by "
						+ from.getName() + "; only an outermost hold can be handed to a lease");
			}
			this.slots.transfer(to);
			this.hold.movedFromThread();
			HeldNode current = this.entryNode.node();
			if (current != null) {
				current.removeRevocationListeners(Holder.thread(from));
			}
		}
		finally {
			this.stateLock.unlock();
		}
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
			return this.slots.isFree() && this.entryNode.node() == null;
		}
		finally {
			this.stateLock.unlock();
		}
	}

	@Override
	public void forEachHeldNode(Consumer<HeldNode> action) {
		HeldNode current = this.entryNode.node();
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
			Thread owner = this.hold.ownerThread();
			boolean held = isHeld();
			return snapshot(held, (owner != null) ? owner.getName() : null, this.hold.since(), this.entryNode.node(),
					this.slots.isPermitGuard() ? LockKind.SEMAPHORE : LockKind.EXCLUSIVE, held ? 1 : 0, 0,
					this.entryNode.lingers());
		}
		finally {
			this.stateLock.unlock();
		}
	}

}
