package dev.zklock.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one key that this JVM holds or waits for.
 *
 * @param key the key
 * @param path the ZooKeeper path of the lock
 * @param held whether a thread or lease of this JVM holds it, for reading or writing
 * @param holderThread the name of the thread holding it exclusively (the mutex, or the
 * write side of a read/write lock), {@code null} if none or held by a lease
 * @param heldSince when the current hold began, {@code null} if not held
 * @param waiters how many calls of this JVM wait for it, in the local queue or in
 * ZooKeeper: the size of {@code waiting}, and what
 * {@link dev.zklock.core.registry.ZkLockRegistry#waitingCount()} adds up
 * @param nodePath the ZooKeeper node of this JVM's lease, {@code null} if none
 * @param fencingToken the lease's fencing token, {@code null} if none
 * @param leaseState the lease's state, {@code null} if none
 * @param kind the recipe the key is locked with
 * @param holds how many holds this JVM has on the key: 1 for a held mutex, the read holds
 * of a read/write lock (all sharing one read node), the leases of a semaphore; 0 if it
 * only waits
 * @param permits the permits of a semaphore, as this JVM asked for them; 0 for other
 * recipes
 * @param lingering whether this JVM keeps the node of an exclusive lock nobody here holds
 * ({@link ZkLockOptions#linger()}): to other participants the key is held
 * @param waiting the calls of this JVM that wait for it, the longest waiting first
 * @author zk-lock
 */
public record LocalLockInfo(String key, String path, boolean held, @Nullable String holderThread,
		@Nullable Instant heldSince, int waiters, @Nullable String nodePath, @Nullable Long fencingToken,
		@Nullable LeaseState leaseState, LockKind kind, int holds, int permits, boolean lingering,
		List<LocalWaiter> waiting) {

	/**
	 * Create a new instance.
	 */
	public LocalLockInfo {
		waiting = List.copyOf(waiting);
	}

}
