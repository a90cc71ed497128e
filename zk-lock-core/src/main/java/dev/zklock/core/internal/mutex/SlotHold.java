package dev.zklock.core.internal.mutex;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.internal.Holder;

/**
 * The hold of an entry's local slot, as Curator's {@code InterProcessMutex} keeps its
 * lock data: since when the key is held, and, for a thread, which one and how many times
 * nested. It is written under the entry's state lock when the slot changes hands, and the
 * nested count only by the owner thread; the owner and the time are volatile, read by the
 * reentrant fast path and by snapshots without the lock.
 */
final class SlotHold {

	/** The holding thread, for the reentrant fast path; null for leases. */
	private volatile @Nullable Thread ownerThread;

	/** Reentrant holds of the owner thread; only the owner thread touches it. */
	private int count;

	private volatile @Nullable Instant since;

	@Nullable Thread ownerThread() {
		return this.ownerThread;
	}

	@Nullable Instant since() {
		return this.since;
	}

	boolean isHeld() {
		return this.since != null;
	}

	/** How many times the owner thread holds. */
	int count() {
		return this.count;
	}

	/**
	 * Whether a thread holds exactly once: its hold could be handed to a lease.
	 */
	boolean isOnceBy(Thread thread) {
		return this.ownerThread == thread && this.count == 1;
	}

	/** {@code who} holds from now, once. Under the state lock. */
	void take(Holder who) {
		this.ownerThread = who.thread();
		this.count = 1;
		this.since = Instant.now();
	}

	/** Nobody holds. Under the state lock. */
	void clear() {
		this.ownerThread = null;
		this.since = null;
		this.count = 0;
	}

	/**
	 * The hold moved to a holder that is no thread (a lease): the time carries over.
	 * Under the state lock.
	 */
	void movedFromThread() {
		this.ownerThread = null;
		this.count = 0;
	}

	/** Only the owner thread calls this. */
	int increment() {
		if (this.count == Integer.MAX_VALUE) {
			// As ReentrantLock does: wrapping around would let one unlock() release the
			// lock
			throw new Error("Maximum lock count exceeded");
		}
		return ++this.count;
	}

	/** Only the owner thread calls this. */
	int decrement() {
		return --this.count;
	}

	/**
	 * Set the owner thread's count, for tests only ({@code HoldCountTests}): 2^31 - 1
	 * nested holds would take a minute to make one by one. Only the owner thread calls
	 * this.
	 */
	void countForTests(int count) {
		this.count = count;
	}

}
