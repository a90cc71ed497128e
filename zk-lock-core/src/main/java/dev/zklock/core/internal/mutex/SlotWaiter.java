package dev.zklock.core.internal.mutex;

import java.util.concurrent.locks.LockSupport;

import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.Interrupts;

/**
 * A thread queued for an entry's local slot. The slot is granted, never grabbed: the
 * releasing holder sets the outcome and the flag under the entry's state lock, and wakes
 * the waiter once that lock is released. Whatever wakes the waiter first (the grant, a
 * timeout, an interrupt), it finds itself granted or leaves the queue under the state
 * lock, never both.
 */
final class SlotWaiter {

	final Thread thread;

	final Holder who;

	/** Written before {@code granted}, read after it. */
	private Slot outcome = Slot.TIMED_OUT;

	private volatile boolean granted;

	SlotWaiter(Thread thread, Holder who) {
		this.thread = thread;
		this.who = who;
	}

	boolean isGranted() {
		return this.granted;
	}

	/**
	 * Grant the slot. Guarded by the entry's state lock; the caller {@link #wake wakes}
	 * the waiter once the lock is released.
	 */
	void grant(Slot outcome) {
		this.outcome = outcome;
		this.granted = true;
	}

	/** Wake the waiter: granted after the state lock was released, or closed. */
	void wake() {
		LockSupport.unpark(this.thread);
	}

	/**
	 * Park until granted or the deadline, leaving the queue on a timeout or an interrupt
	 * unless granted meanwhile.
	 * @param entry the entry queued for, also the park's blocker
	 * @return how it ended
	 */
	Slot await(MutexEntry entry, Deadline deadline, Interrupts interrupts) throws InterruptedException {
		while (!this.granted) {
			long remaining = deadline.remainingNanos();
			boolean interrupted = Thread.interrupted();
			if (interrupted) {
				try {
					interrupts.interrupted(new InterruptedException());
				}
				catch (InterruptedException ex) {
					if (!entry.leaveQueue(this)) {
						// Granted while we were interrupted: take it, keep the interrupt
						// for later
						Thread.currentThread().interrupt();
						return this.outcome;
					}
					throw ex;
				}
			}
			if (remaining <= 0) {
				if (entry.leaveQueue(this)) {
					return Slot.TIMED_OUT;
				}
				if (this.outcome == Slot.GRANTED) {
					// Granted a bare slot just as the wait ran out: pass it on rather
					// than start a ZooKeeper attempt with no time left
					entry.abandonSlot(this.who);
					return Slot.TIMED_OUT;
				}
				return this.outcome;
			}
			if (deadline.isInfinite()) {
				LockSupport.park(entry);
			}
			else {
				LockSupport.parkNanos(entry, remaining);
			}
		}
		return this.outcome;
	}

}
