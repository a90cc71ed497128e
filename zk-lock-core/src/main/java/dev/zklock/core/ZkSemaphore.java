package dev.zklock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A distributed counting semaphore for one key, from
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainSemaphore(String, int)}: at most
 * {@link #permits()} leases are held at once, across JVMs. Wire-compatible with Curator's
 * {@code InterProcessSemaphoreV2} on the same path: a Curator process given the same
 * number of leases shares the permits.
 *
 * <p>
 * Each permit is a {@link ZkLease} that any thread may release; a lease is not reentrant
 * (a thread that asks twice takes two permits). Every participant must agree on the
 * number of permits: ZooKeeper keeps the leases, not the number, as with Curator.
 *
 * @author zk-lock
 */
public interface ZkSemaphore {

	/**
	 * Acquire a permit, waiting at most {@code waitAtMost}; {@link Duration#ZERO} makes
	 * one attempt.
	 * @param waitAtMost the longest time to wait
	 * @return the lease on the permit, held
	 * @throws LockAcquisitionException if no permit was acquired, naming the reason
	 */
	ZkLease acquire(Duration waitAtMost);

	/**
	 * Acquire a permit if one frees up within {@code waitAtMost}.
	 * @param waitAtMost the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @return the lease, or {@code null} if every permit stayed taken, also when the wait
	 * ran out during the round trip that followed its queueing
	 * @throws LockAcquisitionException if the attempt failed for another reason than
	 * taken permits: no connection (at once for a zero wait), no reply for most of the
	 * wait, the registry closed
	 */
	@Nullable ZkLease tryAcquire(Duration waitAtMost);

	/**
	 * Return how many permits are free now, by reading ZooKeeper: a hint, already old
	 * when it returns.
	 * @return the free permits, never negative
	 * @throws LockAcquisitionException if ZooKeeper could not be read within the
	 * connection timeout, or at once if the client is not connected
	 */
	int availablePermits();

	/**
	 * Return the number of permits.
	 * @return the permits
	 */
	int permits();

	/**
	 * Return the key.
	 * @return the key
	 */
	String key();

	/**
	 * Return the ZooKeeper path of the semaphore, relative to the client's namespace, as
	 * a plain Curator {@code InterProcessSemaphoreV2} would be given it.
	 * @return the path
	 */
	String path();

}
