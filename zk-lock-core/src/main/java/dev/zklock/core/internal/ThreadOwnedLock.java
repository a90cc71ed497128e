package dev.zklock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.LockLostException.WorkOutcome;
import dev.zklock.core.ZkLock;

/**
 * The {@link Lock} protocol of every lock held by a thread, mapped onto one engine call:
 * reentry first, then an acquisition under a deadline that either waits for other holders
 * or makes one attempt, with interrupts deferred or thrown as each method's contract
 * says.
 */
public abstract class ThreadOwnedLock implements ZkLock {

	/**
	 * The new holds of a lock on several keys being taken by this thread, not told yet.
	 */
	private static final ThreadLocal<@Nullable List<ThreadOwnedLock>> PENDING = new ThreadLocal<>();

	private final Engine engine;

	private final String key;

	private final String path;

	public ThreadOwnedLock(Engine engine, String key, String path) {
		this.engine = engine;
		this.key = key;
		this.path = path;
	}

	/**
	 * Take the hold again if the current thread has it: no ZooKeeper request.
	 * @return whether it was taken
	 * @throws LockLostException if the current thread's hold was lost
	 */
	public abstract boolean reenter();

	/**
	 * Refuse to count one more hold on a node that was lost: another participant may hold
	 * the lock now, and the reentrant path asks ZooKeeper nothing that would tell the
	 * caller.
	 */
	public final void checkNotLost(@Nullable HeldNode node) {
		if (node != null && node.state() == LeaseState.LOST) {
			throw new LockLostException(this.key, this.path, node.fencingToken(), node.lostBecause(),
					WorkOutcome.NOT_STARTED);
		}
	}

	/**
	 * Acquire for the current thread.
	 */
	public abstract void acquire(Deadline deadline, boolean waitForOthers, Interrupts interrupts)
			throws AcquireFailure, InterruptedException;

	@Override
	public final void lock() {
		if (reenter()) {
			return;
		}
		try {
			acquireAndTell(Deadline.never(), true, Interrupts.deferred());
		}
		catch (AcquireFailure ex) {
			throw ex.toException(this.key, this.path, Duration.ZERO);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible lock was interrupted", ex);
		}
	}

	@Override
	public final void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (reenter()) {
			return;
		}
		try {
			acquireAndTell(Deadline.never(), true, Interrupts.interruptible());
		}
		catch (AcquireFailure ex) {
			throw ex.toException(this.key, this.path, Duration.ZERO);
		}
	}

	@Override
	public final boolean tryLock() {
		if (reenter()) {
			return true;
		}
		try {
			acquireAndTell(Deadline.after(0), false, Interrupts.deferred());
			return true;
		}
		catch (AcquireFailure ex) {
			return failedAttempt(ex, Duration.ZERO);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible attempt was interrupted", ex);
		}
	}

	@Override
	public final boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (reenter()) {
			return true;
		}
		Duration waitAtMost = Duration.ofNanos(unit.toNanos(Math.max(0, time)));
		try {
			acquireAndTell(Deadline.after(waitAtMost), !waitAtMost.isZero(), Interrupts.interruptible());
			return true;
		}
		catch (AcquireFailure ex) {
			return failedAttempt(ex, waitAtMost);
		}
	}

	@Override
	public final void acquire(Duration waitAtMost) {
		if (reenter()) {
			return;
		}
		Deadline deadline = Deadline.after(waitAtMost);
		try {
			acquireAndTell(deadline, !waitAtMost.isZero(), Interrupts.interruptible());
		}
		catch (AcquireFailure | InterruptedException ex) {
			throw AcquireFailure.toException(ex, this.key, this.path, deadline.elapsed());
		}
	}

	/**
	 * Acquire within {@code waitAtMost} for a caller that reports a failure itself, as a
	 * lock on several keys does: reentry first, then one acquisition under its own
	 * deadline, as {@link #acquire(Duration)} makes.
	 * @param waitAtMost the longest wait; {@link Duration#ZERO} makes one attempt
	 * @throws AcquireFailure why the lock was not acquired
	 * @throws InterruptedException if the thread was interrupted
	 */
	public final void acquireOrFail(Duration waitAtMost) throws AcquireFailure, InterruptedException {
		if (reenter()) {
			return;
		}
		acquireAndTell(Deadline.after(waitAtMost), !waitAtMost.isZero(), Interrupts.interruptible());
	}

	/**
	 * Acquire a hold, then tell the listeners on this thread of a new one before it is
	 * handed to the caller: a reentry (a read lock's joins its count here) is no new hold
	 * and is not told. A listener's {@link Error} gives the hold back, so that no hold
	 * outlives a call that failed.
	 */
	private void acquireAndTell(Deadline deadline, boolean waitForOthers, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		boolean reentry = isHeldByCurrentThread();
		acquire(deadline, waitForOthers, interrupts);
		if (!reentry) {
			tellAcquired();
		}
	}

	/**
	 * Tell the listeners that the current thread holds this lock now; while a lock on
	 * several keys takes them ({@link #tellingWhenAllTaken}), only once it has taken all.
	 */
	private void tellAcquired() {
		List<ThreadOwnedLock> pending = PENDING.get();
		if (pending != null) {
			pending.add(this);
			return;
		}
		try {
			this.engine.tellAcquired(this.key, this.path);
		}
		catch (Error ex) {
			unlock();
			throw ex;
		}
	}

	/**
	 * Take several locks, telling the listeners of each new hold only once the taking has
	 * succeeded: a hold given back because a later key was not taken is never told.
	 * @param taking takes the locks; whether all were taken
	 * @return what {@code taking} returned
	 * @throws InterruptedException if {@code taking} was interrupted
	 */
	public static boolean tellingWhenAllTaken(TakeAll taking) throws InterruptedException {
		List<ThreadOwnedLock> outer = PENDING.get();
		List<ThreadOwnedLock> pending = new ArrayList<>();
		PENDING.set(pending);
		boolean taken;
		try {
			taken = taking.take();
		}
		finally {
			PENDING.set(outer);
		}
		if (taken) {
			for (ThreadOwnedLock lock : pending) {
				lock.tellAcquired();
			}
		}
		return taken;
	}

	/** Takes the keys of a lock on several keys. */
	@FunctionalInterface
	public interface TakeAll {

		boolean take() throws InterruptedException;

	}

	/**
	 * The node behind the current thread's hold.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	public abstract HeldNode heldNode();

	/**
	 * The current thread's hold is looked up when the transaction runs, on the thread
	 * that runs it.
	 */
	@Override
	public final GuardedTransaction guardedTransaction() {
		return this.engine.guardedTransaction(() -> List.of(new GuardedMulti.Guard(this.key, this.path, heldNode())));
	}

	@Override
	public final long fencingToken() {
		return heldNode().fencingToken();
	}

	@Override
	public final LeaseState leaseState() {
		return heldNode().state();
	}

	@Override
	public final @Nullable String lostBecause() {
		return heldNode().lostBecauseIfLost();
	}

	@Override
	public final void onRevocationRequested(Runnable listener) {
		this.engine.onRevocationRequested(heldNode(), Holder.currentThread(), listener);
	}

	@Override
	public final boolean isRevocationRequested() {
		return heldNode().isRevocationRequested();
	}

	@Override
	public final String key() {
		return this.key;
	}

	@Override
	public final String path() {
		return this.path;
	}

	private boolean failedAttempt(AcquireFailure ex, Duration waitAtMost) {
		if (ex.reason() == LockAcquisitionException.Reason.ERROR
				|| ex.reason() == LockAcquisitionException.Reason.CLOSED) {
			throw ex.toException(this.key, this.path, waitAtMost);
		}
		return false;
	}

}
