package dev.zklock.template;

import java.time.Duration;
import java.util.Collection;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.ZkReadWriteLock;
import dev.zklock.core.ZkSemaphore;

/**
 * What a {@link LockDefinition} takes on some keys, through its Curator recipe, and gives
 * back: the exclusive locks of the keys, one side of their read/write locks, or a
 * semaphore's permit. The template runs every recipe through the same {@link Hold},
 * observation and context; only these differences are here. One instance per acquisition.
 */
abstract sealed class RecipeLock {

	/**
	 * Return what a definition takes on some keys.
	 * @throws IllegalArgumentException if there is no key, a key cannot be a lock key, or
	 * a semaphore is given several keys
	 */
	static RecipeLock of(ZkLockRegistry registry, LockDefinition definition, Collection<String> keys) {
		if (definition.isSemaphore()) {
			SortedSet<String> distinct = new TreeSet<>(keys);
			if (distinct.size() != 1) {
				throw new IllegalArgumentException("The semaphore '" + definition.name()
						+ "' takes a permit of one key, but was given " + (distinct.isEmpty() ? "none" : distinct));
			}
			return new Permit(registry.obtainSemaphore(distinct.first(), definition.permits()));
		}
		if (definition.mode() == LockMode.EXCLUSIVE) {
			return new Locks(registry.obtainAll(keys), (key) -> registry.obtain(key));
		}
		boolean read = definition.mode() == LockMode.READ;
		ZkReadWriteLock all = registry.obtainAllReadWrite(keys);
		return new Locks(read ? all.readLock() : all.writeLock(),
				(key) -> read ? registry.obtainReadWrite(key).readLock() : registry.obtainReadWrite(key).writeLock());
	}

	/**
	 * Acquire, waiting at most {@code wait} for everything.
	 * @throws dev.zklock.core.LockAcquisitionException if not acquired; nothing is held
	 * then
	 */
	abstract void acquire(Duration waitAtMost);

	/**
	 * Whether this thread holds it already, so that taking it again is reentry.
	 */
	abstract boolean isHeldByCurrentThread();

	/**
	 * Give back one hold of this thread (or the lease), in the reverse order of taking.
	 */
	abstract void release();

	/**
	 * Hand the hold to a lease that any thread may release, for work that outlives the
	 * call.
	 * @throws UnsupportedOperationException for a read or write side, which belongs to
	 * its thread
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

	/**
	 * Read the state of one of the keys' leases.
	 */
	abstract LeaseState leaseState(String key);

	/**
	 * What made one key's lease lost, or {@code null} while it is not lost.
	 */
	abstract @Nullable String lostBecause(String key);

	/**
	 * Have this JVM watch the hold's nodes, so that a delete by another client makes the
	 * lease {@link LeaseState#LOST}: one read per node, once. A permit's node is not
	 * watched: only the loss of its session is heard.
	 */
	abstract void watchNodes();

	/**
	 * Ask to be told, on behalf of this thread's hold, when someone requests it back.
	 * @throws UnsupportedOperationException for a permit, which is not asked back
	 */
	abstract void onRevocationRequested(Runnable listener);

	/**
	 * Whether someone requested this thread's hold back, as far as it listens.
	 */
	abstract boolean isRevocationRequested();

	/**
	 * A Curator transaction guarded by the hold's nodes: this thread's hold of the locks,
	 * or the permit's lease.
	 */
	abstract GuardedTransaction guardedTransaction();

	/**
	 * The exclusive locks of some keys, or one side of their read/write locks, as the
	 * registry takes several in order under one wait, all or nothing.
	 */
	static final class Locks extends RecipeLock {

		private final ZkLock lock;

		/**
		 * The lock of one of the keys, whose own fencing token a lock on several has not.
		 */
		private final Function<String, ZkLock> keyLock;

		Locks(ZkLock lock, Function<String, ZkLock> keyLock) {
			this.lock = lock;
			this.keyLock = keyLock;
		}

		@Override
		void acquire(Duration waitAtMost) {
			this.lock.acquire(waitAtMost);
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
			return this.keyLock.apply(key).fencingToken();
		}

		@Override
		LeaseState leaseState() {
			return this.lock.leaseState();
		}

		@Override
		LeaseState leaseState(String key) {
			return this.keyLock.apply(key).leaseState();
		}

		@Override
		@Nullable String lostBecause(String key) {
			return this.keyLock.apply(key).lostBecause();
		}

		@Override
		void watchNodes() {
			// Listening for requests arms the watch, which hears the delete too
			this.lock.onRevocationRequested(Locks::ignore);
		}

		private static void ignore() {
		}

		@Override
		void onRevocationRequested(Runnable listener) {
			this.lock.onRevocationRequested(listener);
		}

		@Override
		boolean isRevocationRequested() {
			return this.lock.isRevocationRequested();
		}

		@Override
		GuardedTransaction guardedTransaction() {
			return this.lock.guardedTransaction();
		}

	}

	/**
	 * A permit of a key's semaphore: a lease from the moment it is acquired, never
	 * reentrant.
	 */
	static final class Permit extends RecipeLock {

		private final ZkSemaphore semaphore;

		private volatile @Nullable ZkLease lease;

		Permit(ZkSemaphore semaphore) {
			this.semaphore = semaphore;
		}

		@Override
		void acquire(Duration waitAtMost) {
			this.lease = this.semaphore.acquire(waitAtMost);
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

		@Override
		LeaseState leaseState(String key) {
			return lease().state();
		}

		@Override
		@Nullable String lostBecause(String key) {
			return lease().lostBecause();
		}

		@Override
		void watchNodes() {
		}

		@Override
		void onRevocationRequested(Runnable listener) {
			throw new UnsupportedOperationException("A semaphore's permits are not asked back");
		}

		@Override
		boolean isRevocationRequested() {
			return false;
		}

		@Override
		GuardedTransaction guardedTransaction() {
			return lease().guardedTransaction();
		}

	}

}
