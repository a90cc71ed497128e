package dev.zklock.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;
import dev.zklock.core.ZkSemaphore;

/**
 * What one hold of a {@link ZkLockTemplate} takes and gives back, whatever the recipe: the
 * exclusive locks of some keys, one side of their read/write locks, or a semaphore's permit. The
 * template runs every recipe through the same hold, observation and context; only these
 * differences are here. One instance per acquisition.
 */
abstract sealed class Holding {

	/**
	 * Return what a definition takes on some keys.
	 * @throws IllegalArgumentException if there is no key, a key cannot be a lock key, or a
	 * semaphore is given several keys
	 */
	static Holding of(ZkLockRegistry registry, LockDefinition definition, Collection<String> keys) {
		if (definition.permits() > 0) {
			SortedSet<String> distinct = new TreeSet<>(keys);
			if (distinct.size() != 1) {
				throw new IllegalArgumentException("The semaphore '" + definition.name()
						+ "' takes a permit of one key, but was given " + (distinct.isEmpty() ? "none" : distinct));
			}
			return new Permit(registry.obtainSemaphore(distinct.first(), definition.permits()));
		}
		if (definition.mode() == LockMode.EXCLUSIVE) {
			return new Exclusive(registry, registry.obtainAll(keys));
		}
		// The order of obtainAll: the same in every JVM, so overlapping sets cannot wait in a cycle
		SortedSet<String> sorted = new TreeSet<>(keys);
		if (sorted.isEmpty()) {
			throw new IllegalArgumentException("At least one lock key is needed, but none was given");
		}
		List<ZkLock> sides = new ArrayList<>(sorted.size());
		for (String key : sorted) {
			sides.add((definition.mode() == LockMode.READ) ? registry.obtainReadWrite(key).readLock()
					: registry.obtainReadWrite(key).writeLock());
		}
		return new Sides(definition.mode(), sides);
	}

	/**
	 * Acquire, waiting at most {@code wait} for everything.
	 * @throws dev.zklock.core.LockAcquisitionException if not acquired; nothing is held then
	 */
	abstract void acquire(Duration wait);

	/**
	 * Whether this thread holds it already, so that taking it again is reentry.
	 */
	abstract boolean isHeldByCurrentThread();

	/**
	 * Give back one hold of this thread (or the lease), in the reverse order of taking.
	 */
	abstract void release();

	/**
	 * Hand the hold to a lease that any thread may release, for work that outlives the call.
	 * @throws UnsupportedOperationException for a read or write side, which belongs to its thread
	 */
	abstract ZkLease toLease();

	/**
	 * Read the fencing token of one of the keys.
	 */
	abstract long fencingToken(String key);

	/**
	 * Read the least certain state of the keys' leases.
	 */
	abstract LeaseState leaseState();

	static LeaseState worse(LeaseState a, LeaseState b) {
		return (a.ordinal() >= b.ordinal()) ? a : b;
	}

	/**
	 * The exclusive locks of some keys, as the registry takes them in order.
	 */
	static final class Exclusive extends Holding {

		private final ZkLockRegistry registry;

		private final ZkLock lock;

		Exclusive(ZkLockRegistry registry, ZkLock lock) {
			this.registry = registry;
			this.lock = lock;
		}

		@Override
		void acquire(Duration wait) {
			this.lock.acquire(wait);
		}

		@Override
		boolean isHeldByCurrentThread() {
			return this.lock.isHeldByCurrentThread();
		}

		@Override
		void release() {
			this.lock.unlock();
		}

		@Override
		ZkLease toLease() {
			return this.lock.toLease();
		}

		@Override
		long fencingToken(String key) {
			// A lock on several keys has no token of its own: each key's lock has
			return this.registry.obtain(key).fencingToken();
		}

		@Override
		LeaseState leaseState() {
			return this.lock.leaseState();
		}

	}

	/**
	 * One side of the read/write locks of some keys: taken in the keys' order under one wait, all
	 * or nothing, and given back newest first, as the registry takes several exclusive locks.
	 */
	static final class Sides extends Holding {

		private final LockMode mode;

		private final List<ZkLock> sides;

		Sides(LockMode mode, List<ZkLock> sides) {
			this.mode = mode;
			this.sides = List.copyOf(sides);
		}

		@Override
		void acquire(Duration wait) {
			long requested = saturatedNanos(wait);
			long deadline = System.nanoTime() + requested;
			int taken = 0;
			try {
				for (ZkLock side : this.sides) {
					side.acquire(Duration.ofNanos(remaining(deadline, requested)));
					taken++;
				}
			}
			catch (RuntimeException | Error ex) {
				try {
					releaseInReverse(this.sides.subList(0, taken));
				}
				catch (RuntimeException releaseFailure) {
					// The failure to acquire is what the caller must see
					ex.addSuppressed(releaseFailure);
				}
				throw ex;
			}
		}

		/**
		 * What is left of the one wait for the next key: a zero wait is one attempt per key; a
		 * positive wait that has run out still gives the next key the shortest real wait, not
		 * zero, which would be a fresh attempt bounded by the connection timeout.
		 */
		private static long remaining(long deadline, long requested) {
			if (requested == 0) {
				return 0;
			}
			return Math.max(1, deadline - System.nanoTime());
		}

		private static long saturatedNanos(Duration wait) {
			try {
				return wait.toNanos();
			}
			catch (ArithmeticException ex) {
				return Long.MAX_VALUE / 2;
			}
		}

		@Override
		boolean isHeldByCurrentThread() {
			for (ZkLock side : this.sides) {
				if (!side.isHeldByCurrentThread()) {
					return false;
				}
			}
			return true;
		}

		@Override
		void release() {
			releaseInReverse(this.sides);
		}

		/**
		 * Give back every side, newest first, even if some throw; then throw the first failure
		 * with the others suppressed.
		 */
		private static void releaseInReverse(List<ZkLock> taken) {
			RuntimeException failure = null;
			for (int i = taken.size() - 1; i >= 0; i--) {
				try {
					taken.get(i).unlock();
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

		@Override
		ZkLease toLease() {
			throw new UnsupportedOperationException("The " + this.mode + " side of the read/write lock of " + keys()
					+ " belongs to the thread that took it and cannot be held for work that outlives the call");
		}

		@Override
		long fencingToken(String key) {
			for (ZkLock side : this.sides) {
				if (side.key().equals(key)) {
					return side.fencingToken();
				}
			}
			throw new IllegalArgumentException("'" + key + "' is not one of " + keys());
		}

		@Override
		LeaseState leaseState() {
			LeaseState worst = LeaseState.HELD;
			for (ZkLock side : this.sides) {
				worst = worse(worst, side.leaseState());
			}
			return worst;
		}

		private List<String> keys() {
			return this.sides.stream().map(ZkLock::key).toList();
		}

	}

	/**
	 * A permit of a key's semaphore: a lease from the moment it is acquired, never reentrant.
	 */
	static final class Permit extends Holding {

		private final ZkSemaphore semaphore;

		private volatile @Nullable ZkLease lease;

		Permit(ZkSemaphore semaphore) {
			this.semaphore = semaphore;
		}

		@Override
		void acquire(Duration wait) {
			this.lease = this.semaphore.acquire(wait);
		}

		@Override
		boolean isHeldByCurrentThread() {
			// A permit belongs to no thread: asking again takes another one
			return false;
		}

		@Override
		void release() {
			lease().release();
		}

		@Override
		ZkLease toLease() {
			return lease();
		}

		@Override
		long fencingToken(String key) {
			return lease().fencingToken();
		}

		@Override
		LeaseState leaseState() {
			return lease().state();
		}

		private ZkLease lease() {
			ZkLease acquired = this.lease;
			if (acquired == null) {
				throw new IllegalStateException("No permit of " + this.semaphore.key() + " was acquired");
			}
			return acquired;
		}

	}

}
