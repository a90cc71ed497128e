package dev.zklock.core.internal.mutex;

import java.util.ArrayDeque;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.internal.Holder;

/**
 * The local FIFO queue of one key's slot: who holds it, who waits for it in order, and
 * the grant that passes it on. The slot is granted, never grabbed: a releasing holder
 * grants it to the head of the queue, whose waiter is woken once the entry's state lock
 * is released ({@link #wake}). Every other method runs under the entry's state lock.
 */
final class SlotQueue {

	private final ArrayDeque<SlotWaiter> waiters = new ArrayDeque<>();

	/** Who holds the slot: a thread, a lease, or a semaphore's permit acquisition. */
	private @Nullable Holder holder;

	/**
	 * Whether the slot was last taken for a semaphore's permit acquisition: the entry is
	 * then a semaphore's guard, and reported as such.
	 */
	private boolean permitGuard;

	/**
	 * Whether the holder waited in the queue for the slot: threads of this JVM take turns
	 * on the key.
	 */
	private boolean holderQueued;

	/** Whether nobody holds the slot and nobody waits for it: it is taken at once. */
	boolean isFree() {
		return this.holder == null && this.waiters.isEmpty();
	}

	boolean isHeld() {
		return this.holder != null;
	}

	boolean isHeldBy(Holder who) {
		return who.equals(this.holder);
	}

	boolean hasWaiters() {
		return !this.waiters.isEmpty();
	}

	/**
	 * Whether threads of this JVM take turns on the key: one waits, or the holder did.
	 */
	boolean takesTurns() {
		return this.holderQueued || !this.waiters.isEmpty();
	}

	boolean isPermitGuard() {
		return this.permitGuard;
	}

	/** Take the free slot for {@code who}, who did not wait. */
	void take(Holder who) {
		takenBy(who);
		this.holderQueued = false;
	}

	/** The slot's hold moves to {@code to}; nothing else changes. */
	void transfer(Holder to) {
		takenBy(to);
	}

	/** Queue the current thread for {@code who}, last. */
	SlotWaiter enqueue(Holder who) {
		SlotWaiter waiter = new SlotWaiter(Thread.currentThread(), who);
		this.waiters.addLast(waiter);
		return waiter;
	}

	/**
	 * Leave the queue unless already granted.
	 * @return whether the waiter left
	 */
	boolean leave(SlotWaiter waiter) {
		if (waiter.isGranted()) {
			return false;
		}
		this.waiters.remove(waiter);
		return true;
	}

	/** The head of the queue, the next to be granted, if any. */
	@Nullable SlotWaiter next() {
		return this.waiters.peekFirst();
	}

	/**
	 * The holder lets go: grant the slot to the head of the queue with {@code outcome},
	 * or leave it free. The caller {@link #wake wakes} the waiter granted once the state
	 * lock is released.
	 * @return the waiter granted, if any
	 */
	@Nullable SlotWaiter passOn(Slot outcome) {
		SlotWaiter next = this.waiters.pollFirst();
		if (next == null) {
			this.holder = null;
			return null;
		}
		takenBy(next.who);
		this.holderQueued = true;
		next.grant(outcome);
		return next;
	}

	/**
	 * Every waiter leaves the queue with {@link Slot#CLOSED}; the holder keeps its hold.
	 */
	void close() {
		SlotWaiter waiter;
		while ((waiter = this.waiters.pollFirst()) != null) {
			waiter.grant(Slot.CLOSED);
			waiter.wake();
		}
	}

	private void takenBy(Holder who) {
		this.holder = who;
		this.permitGuard = (who.kind() == Holder.Kind.PERMIT);
	}

	/**
	 * Wake a waiter granted the slot, if any, after the state lock is released. It holds
	 * from the grant on: whatever wakes it first (this, a timeout, an interrupt) it finds
	 * itself granted.
	 */
	static void wake(@Nullable SlotWaiter granted) {
		if (granted != null) {
			granted.wake();
		}
	}

}
