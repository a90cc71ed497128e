package dev.zklock.core.internal.mutex;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.GuardedMulti;
import dev.zklock.core.internal.ThreadOwnedLock;

/**
 * The {@link ZkLock} handed out by
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainAll}, and each side of
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainAllReadWrite}: the locks of
 * several keys, taken in one global order (the keys' natural order, the same in every
 * JVM, so that two callers locking overlapping sets never wait for each other in a cycle)
 * under one deadline, all or nothing, and released in the reverse order. Each key is
 * reentrant on its own, as {@link dev.zklock.core.registry.ZkLockRegistry#obtain} is.
 */
public final class MultiKeyLock implements ZkLock {

	/** The engine of exclusive locks; {@code null} for the sides of read/write locks. */
	private final @Nullable MutexEngine mutex;

	private final List<ZkLock> locks;

	/**
	 * @param mutex the engine the exclusive locks come from, {@code null} for read/write
	 * sides, which cannot be handed to a lease
	 * @param locks the locks, in the order to take them
	 */
	public MultiKeyLock(@Nullable MutexEngine mutex, List<ZkLock> locks) {
		this.mutex = mutex;
		this.locks = List.copyOf(locks);
	}

	@Override
	public void lock() {
		takeAllUninterruptibly((lock, taken) -> {
			lock.lock();
			return true;
		});
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		takeAll((lock, taken) -> {
			lock.lockInterruptibly();
			return true;
		});
	}

	@Override
	public boolean tryLock() {
		return takeAllUninterruptibly((lock, taken) -> lock.tryLock());
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		long nanos = unit.toNanos(Math.max(0, time));
		Deadline deadline = Deadline.after(nanos);
		return takeAll((lock, taken) -> lock.tryLock(remaining(deadline, nanos), TimeUnit.NANOSECONDS));
	}

	/**
	 * Take every key under the one wait. A failure names the key it stopped at and the
	 * whole time waited; part-way, it says how many keys were taken, and a wait that ran
	 * out while ZooKeeper's reply for the next key was awaited, nobody having been seen
	 * holding it, is not reported busy ({@link #failure}).
	 */
	@Override
	public void acquire(Duration waitAtMost) {
		Deadline deadline = Deadline.after(waitAtMost);
		long nanos = Deadline.saturatedNanos(waitAtMost);
		takeAllUninterruptibly((lock, taken) -> {
			Duration keyWait = Duration.ofNanos(remaining(deadline, nanos));
			if (!(lock instanceof ThreadOwnedLock owned)) {
				lock.acquire(keyWait);
				return true;
			}
			try {
				owned.acquireOrFail(keyWait);
				return true;
			}
			catch (AcquireFailure ex) {
				throw failure(ex, lock, taken, deadline, waitAtMost);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw failure(new AcquireFailure(Reason.INTERRUPTED, "", ex), lock, taken, deadline, waitAtMost);
			}
		});
	}

	/**
	 * The failure of the whole call, stopped at {@code lock} after {@code taken} keys:
	 * the key's own failure, with the time waited since the call began; and, part-way,
	 * how far the call got. When the wait ran out while ZooKeeper's reply for the key was
	 * awaited, and nobody was seen holding it, the key's own reason would say
	 * {@code HELD_REMOTELY} ("held by another participant for the whole wait"), which is
	 * untrue of a call that spent its wait taking the keys before it one by one. No
	 * reason says "the wait was too short for the keys"; {@code NO_REPLY} is the least
	 * misleading (the reply awaited when the wait ran out had not come), and the detail
	 * says what happened.
	 */
	private LockAcquisitionException failure(AcquireFailure failure, ZkLock lock, int taken, Deadline deadline,
			Duration waitAtMost) {
		Duration waited = deadline.elapsed();
		if (taken == 0) {
			return failure.toException(lock.key(), lock.path(), waited);
		}
		int of = this.locks.size();
		String progress = taken + " of the " + of + " keys were taken, one by one, and given back";
		if (failure.isUndecided()) {
			return new AcquireFailure(Reason.NO_REPLY,
					"the wait of " + waitAtMost.toMillis() + " ms ran out while taking the keys one by one: " + progress
							+ "; nobody was seen holding '" + lock.key() + "', the next key, whose reply was "
							+ "still awaited (" + failure.detail() + "): the wait is too short for " + of + " keys",
					failure.getCause())
				.toException(lock.key(), lock.path(), waited);
		}
		String detail = failure.detail();
		return new AcquireFailure(failure.reason(), (detail.isEmpty() ? "" : detail + "; ") + progress,
				failure.getCause())
			.toException(lock.key(), lock.path(), waited);
	}

	/**
	 * {@link #takeAll} with takers that report interrupts their own way (restoring the
	 * flag, or as a {@link LockAcquisitionException}) rather than by throwing.
	 */
	private boolean takeAllUninterruptibly(Taker taker) {
		try {
			return takeAll(taker);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible lock was interrupted", ex);
		}
	}

	/**
	 * Take every lock in order under one deadline; if one is not taken, or taking it
	 * throws, give back those already taken, newest first.
	 */
	private boolean takeAll(Taker taker) throws InterruptedException {
		// The listeners hear of the keys' holds once all are held, never of a hold given
		// back part-way
		return ThreadOwnedLock.tellingWhenAllTaken(() -> takeEach(taker));
	}

	private boolean takeEach(Taker taker) throws InterruptedException {
		int taken = 0;
		try {
			for (ZkLock lock : this.locks) {
				if (!taker.take(lock, taken)) {
					giveBack(taken, null);
					return false;
				}
				taken++;
			}
			return true;
		}
		catch (RuntimeException | InterruptedException | Error ex) {
			giveBack(taken, ex);
			throw ex;
		}
	}

	/**
	 * Release the first {@code count} locks, newest first; what that throws is attached
	 * to the failure that made us give them back, if any: it must not hide it.
	 */
	private void giveBack(int count, @Nullable Throwable cause) {
		try {
			releaseInReverse(this.locks.subList(0, count), ZkLock::unlock);
		}
		catch (RuntimeException ex) {
			if (cause != null) {
				cause.addSuppressed(ex);
			}
		}
	}

	/**
	 * What is left of the one deadline for the next key. A zero wait means one attempt
	 * per key; a positive wait that has run out still gives the next key the shortest
	 * real wait, not zero, which would mean a fresh attempt bounded by the connection
	 * timeout.
	 */
	private static long remaining(Deadline deadline, long requestedNanos) {
		if (requestedNanos == 0) {
			return 0;
		}
		return Math.max(1, deadline.remainingNanos());
	}

	@FunctionalInterface
	private interface Taker {

		/**
		 * Take one lock.
		 * @param lock the lock
		 * @param taken how many locks before it were taken
		 * @return whether it was taken
		 */
		boolean take(ZkLock lock, int taken) throws InterruptedException;

	}

	@Override
	public void unlock() {
		for (ZkLock lock : this.locks) {
			if (!lock.isHeldByCurrentThread()) {
				throw new IllegalMonitorStateException(
						"Lock '" + lock.key() + "' of " + key() + " is not held by the current thread");
			}
		}
		releaseInReverse(this.locks, ZkLock::unlock);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		for (ZkLock lock : this.locks) {
			if (!lock.isHeldByCurrentThread()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Not defined for several keys: each key's node has its own token. Read it per key,
	 * through {@link dev.zklock.core.registry.ZkLockRegistry#obtain}, and give each
	 * protected resource the token of its key.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public long fencingToken() {
		throw new UnsupportedOperationException("A lock on several keys " + key()
				+ " has one fencing token per key; read each through obtain(key).fencingToken()");
	}

	/**
	 * The least certain state of the keys' leases: {@code LOST} if any is lost, else
	 * {@code UNCERTAIN} if any is uncertain, else {@code HELD}.
	 */
	@Override
	public LeaseState leaseState() {
		return MultiKeyLease.leastCertain(this.locks, ZkLock::leaseState);
	}

	/**
	 * What made the first lost key's lease lost, in lock order.
	 */
	@Override
	public @Nullable String lostBecause() {
		return MultiKeyLease.firstLostBecause(this.locks, ZkLock::lostBecause);
	}

	/**
	 * Told once, whichever key's hold is asked to be given up first.
	 */
	@Override
	public void onRevocationRequested(Runnable listener) {
		AtomicBoolean told = new AtomicBoolean();
		Runnable once = () -> {
			if (told.compareAndSet(false, true)) {
				listener.run();
			}
		};
		for (ZkLock lock : this.locks) {
			lock.onRevocationRequested(once);
		}
	}

	@Override
	public boolean isRevocationRequested() {
		for (ZkLock lock : this.locks) {
			if (lock.isRevocationRequested()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Every key's node is checked, in lock order, in one multi.
	 */
	@Override
	public GuardedTransaction guardedTransaction() {
		return GuardedMulti.allOf(this.locks.stream().map(ZkLock::guardedTransaction).toList());
	}

	@Override
	public ZkLease toLease() {
		MutexEngine mutex = this.mutex;
		if (mutex == null) {
			throw new UnsupportedOperationException(
					"The read/write locks of " + key() + " are held by a thread and cannot be handed to a lease");
		}
		Thread current = Thread.currentThread();
		for (ZkLock lock : this.locks) {
			MutexEntry entry = mutex.entry(lock.path());
			if (entry == null || entry.hold().ownerThread() != current) {
				throw new IllegalMonitorStateException(
						"Lock '" + lock.key() + "' of " + key() + " is not held by the current thread");
			}
			if (!entry.hold().isOnceBy(current)) {
				throw new IllegalStateException("Lock '" + lock.key() + "' of " + key()
						+ " is held more than once by the current thread; only an outermost hold can be handed to a lease");
			}
		}
		List<ZkLease> leases = new ArrayList<>(this.locks.size());
		for (ZkLock lock : this.locks) {
			leases.add(lock.toLease());
		}
		return new MultiKeyLease(leases);
	}

	/**
	 * The keys, in the order they are taken: {@code [a, b]}.
	 */
	@Override
	public String key() {
		return this.locks.stream().map(ZkLock::key).toList().toString();
	}

	/**
	 * The lock paths, in the order they are taken.
	 */
	@Override
	public String path() {
		return this.locks.stream().map(ZkLock::path).toList().toString();
	}

	@Override
	public String toString() {
		return "ZkLock" + path();
	}

	/**
	 * Release every one of the given holds, newest first, even if some throw; then throw
	 * the first failure with the others suppressed.
	 */
	static <T> void releaseInReverse(List<T> holds, Consumer<T> release) {
		RuntimeException failure = null;
		for (int i = holds.size() - 1; i >= 0; i--) {
			try {
				release.accept(holds.get(i));
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
