package dev.zklock.core.internal.readwrite;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Interrupts;

/**
 * Admits this JVM's threads to one side of a read/write entry's fair local lock, in its
 * fair order, until a deadline: the first step of every acquisition, before any node. The
 * registry's close ends every wait: it interrupts the threads blocked here, which then
 * fail as closed rather than as interrupted.
 */
final class LocalAdmission {

	/** Threads blocked on the local lock: {@link #interruptBlocked()} interrupts them. */
	private final Set<Thread> blocked = ConcurrentHashMap.newKeySet();

	/** Whether the registry closed, as the entry tells. */
	private final BooleanSupplier closed;

	LocalAdmission(BooleanSupplier closed) {
		this.closed = closed;
	}

	/**
	 * Take one side of the local lock, waiting in its fair order until the deadline.
	 * @param lock the side to take
	 * @param wait whether to wait for another holder at all
	 * @return whether it was taken
	 * @throws AcquireFailure if the registry closed while we waited
	 */
	boolean admit(Lock lock, Deadline deadline, boolean wait, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		Thread current = Thread.currentThread();
		this.blocked.add(current);
		try {
			boolean queued = false;
			while (true) {
				if (this.closed.getAsBoolean()) {
					throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
				}
				try {
					if (!queued) {
						// A timed try, even of zero, keeps the fair order that tryLock()
						// would skip
						if (lock.tryLock(0, TimeUnit.NANOSECONDS)) {
							return true;
						}
						queued = true;
						deadline.queuedBehind(LockAcquisitionException.Reason.HELD_LOCALLY,
								"queued behind another holder in this JVM");
						if (!wait) {
							return false;
						}
					}
					if (deadline.isInfinite()) {
						lock.lockInterruptibly();
						return true;
					}
					return lock.tryLock(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					if (this.closed.getAsBoolean()) {
						// Interrupted by the close, not by the caller
						throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
					}
					interrupts.interrupted(ex);
				}
			}
		}
		finally {
			this.blocked.remove(current);
		}
	}

	/** The registry closed: every thread blocked on the local lock gives up. */
	void interruptBlocked() {
		this.blocked.forEach(Thread::interrupt);
	}

}
