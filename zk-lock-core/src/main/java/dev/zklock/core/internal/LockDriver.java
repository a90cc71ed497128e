package dev.zklock.core.internal;

import java.util.List;

/**
 * What differs between the lock recipes that share the engine's participant, as Curator's
 * {@code LockInternalsDriver} does for its recipes: what a participant's node is called,
 * and, given the queue in sequence order, whether it holds or which node it waits behind.
 *
 * <p>
 * The names are Curator's, so that each recipe excludes its Curator counterpart on the
 * same path: {@code lock-} for {@code InterProcessMutex}, {@code __READ__} and
 * {@code __WRIT__} for the two sides of {@code InterProcessReadWriteLock}, which share
 * one sequence.
 */
public interface LockDriver {

	/** The exclusive lock: the first node holds. */
	LockDriver MUTEX = new FirstHolds("lock-");

	/** The write side of a read/write lock: the first node holds, read or write. */
	LockDriver WRITE = new FirstHolds("__WRIT__");

	/** The read side of a read/write lock: holds while no write node is ahead. */
	LockDriver READ = new NoWriteAhead();

	/** Curator's name of a semaphore's lease nodes. */
	String CURATOR_PERMIT_NODE_PREFIX = "lease-";

	/** Curator's child of a semaphore's path for its guard mutex. */
	String SEMAPHORE_GUARD = "locks";

	/** Curator's child of a semaphore's path for its leases. */
	String SEMAPHORE_LEASES = "leases";

	/** What {@link #blockerIndex} returns when our node holds. */
	int HOLDS = -1;

	/**
	 * What {@link #blockerIndex} returns when no single node can be watched: any change
	 * of the child list may let the participant hold.
	 */
	int WATCH_CHILDREN = -2;

	/**
	 * The lease of a semaphore with {@code permits} permits: holds while fewer than that
	 * many leases are ahead.
	 * @param permits the permits
	 * @return the driver
	 */
	static LockDriver firstN(int permits) {
		return new FirstN(permits);
	}

	/**
	 * The part of a node name that the sequence follows.
	 * @return the lock name
	 */
	String lockName();

	/**
	 * Whether the node at {@code ourIndex} holds, or else which node to wait behind.
	 * @param queue the lock path's children in sequence order
	 * @param ourIndex the index of our node in it
	 * @return {@link #HOLDS} if our node holds, else the index of the node to watch, or
	 * {@link #WATCH_CHILDREN}
	 */
	int blockerIndex(List<String> queue, int ourIndex);

	/**
	 * Whether, our node holding, a participant queued behind it waits for it to go.
	 * @param queue the lock path's children in sequence order
	 * @param ourIndex the index of our node in it
	 * @return whether someone waits behind us
	 */
	boolean othersWaitBehind(List<String> queue, int ourIndex);

	/**
	 * Whether a node belongs to a writer: a {@code __WRIT__} node, or any node of a plain
	 * mutex, which excludes readers just as well.
	 */
	private static boolean isWrite(String nodeName) {
		return !nodeName.contains(READ.lockName());
	}

	/**
	 * Mutex and writer: the first holds, every other waits behind the one just before it.
	 */
	record FirstHolds(String lockName) implements LockDriver {

		@Override
		public int blockerIndex(List<String> queue, int ourIndex) {
			return (ourIndex == 0) ? HOLDS : ourIndex - 1;
		}

		@Override
		public boolean othersWaitBehind(List<String> queue, int ourIndex) {
			return queue.size() > ourIndex + 1;
		}

	}

	/**
	 * Semaphore lease: holds while fewer than {@code permits} leases precede it.
	 * Curator's {@code InterProcessSemaphoreV2} instead counts every lease while it holds
	 * the semaphore's guard mutex. Both add a lease only while holding the guard, on the
	 * guard's session (a lease whose session ended is added again under the guard taken
	 * again), so the one lease that waits is the newest, and the two rules agree: never
	 * do both wait while a permit is free. Either rule is safe beside the other: leases
	 * are only ever added behind, so a lease that held among the first {@code permits}
	 * stays among them.
	 */
	record FirstN(int permits) implements LockDriver {

		@Override
		public String lockName() {
			return CURATOR_PERMIT_NODE_PREFIX;
		}

		@Override
		public int blockerIndex(List<String> queue, int ourIndex) {
			// Any lease ahead may go first, not only one we could watch
			return (ourIndex < this.permits) ? HOLDS : WATCH_CHILDREN;
		}

		@Override
		public boolean othersWaitBehind(List<String> queue, int ourIndex) {
			return false;
		}

	}

	/**
	 * Reader: holds while no write node precedes it, else waits behind the first one, as
	 * Curator's reader does.
	 */
	record NoWriteAhead() implements LockDriver {

		@Override
		public String lockName() {
			return "__READ__";
		}

		@Override
		public int blockerIndex(List<String> queue, int ourIndex) {
			for (int i = 0; i < ourIndex; i++) {
				if (isWrite(queue.get(i))) {
					return i;
				}
			}
			return HOLDS;
		}

		@Override
		public boolean othersWaitBehind(List<String> queue, int ourIndex) {
			for (int i = ourIndex + 1; i < queue.size(); i++) {
				if (isWrite(queue.get(i))) {
					return true;
				}
			}
			return false;
		}

	}

}
