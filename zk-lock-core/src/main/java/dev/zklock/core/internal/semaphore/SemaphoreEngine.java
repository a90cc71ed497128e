package dev.zklock.core.internal.semaphore;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkSemaphore;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Futures;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.LockTable;
import dev.zklock.core.internal.Publication;
import dev.zklock.core.internal.mutex.MutexEngine;
import dev.zklock.core.internal.mutex.MutexEntry;

/**
 * Acquire and release for semaphores, node for node as Curator's
 * {@code InterProcessSemaphoreV2}: under the semaphore's path, a guard mutex at
 * {@code locks} and the leases at {@code leases}. A caller takes the guard (through the
 * mutex engine, so this JVM's callers queue locally behind one guard node), adds its
 * lease, waits while too many leases are ahead of it, and lets go of the guard. Each
 * lease is its own ephemeral node, so Curator counts it. A lease is only ever added while
 * the guard is held on the lease's session: if the session ends while the lease waits,
 * the caller takes the guard again before it adds another, as Curator's waiter does.
 */
public final class SemaphoreEngine {

	private static final Logger logger = LoggerFactory.getLogger(SemaphoreEngine.class);

	private final Engine engine;

	private final MutexEngine mutex;

	private final LockTable<SemaphoreEntry> entries;

	public SemaphoreEngine(Engine engine, MutexEngine mutex) {
		this.engine = engine;
		this.mutex = mutex;
		this.entries = engine.newTable(SemaphoreEntry::new);
	}

	public ZkSemaphore obtain(String key, String path, int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException(
					"A semaphore needs at least 1 permit, but '" + key + "' was given " + permits);
		}
		return new DefaultZkSemaphore(this, key, path, permits);
	}

	/**
	 * Tell the listeners, on the acquiring thread, that it holds a permit now.
	 */
	void tellAcquired(String key, String path) {
		this.engine.tellAcquired(key, path);
	}

	/**
	 * Acquire a lease on one of {@code permits} permits.
	 */
	ZkLease acquire(String key, String path, int permits, Deadline deadline, boolean waitForOthers,
			Interrupts interrupts) throws AcquireFailure, InterruptedException {
		SemaphoreEntry entry = this.engine.retain(this.entries, key, path);
		entry.waiting(1, permits);
		Object wait = entry.startWaiting(LocalWaiter.Mode.SEMAPHORE);
		boolean acquired = false;
		try {
			String guardPath = ZKPaths.makePath(path, LockDriver.SEMAPHORE_GUARD);
			// A lease lost with its session is added again while the wait lasts; for one
			// attempt, while its ZooKeeper round trips may
			Deadline reentries = waitForOthers ? deadline : this.engine.singleAttemptDeadline();
			HeldNode lease;
			while (true) {
				Holder guard = Holder.permitGuard();
				acquireGuard(key, guardPath, guard, deadline, waitForOthers, interrupts);
				try {
					MutexEntry held = this.mutex.entry(guardPath);
					entry.guardedBy((held != null) ? held.node() : null);
					try (Publication publication = this.engine.acquireNode(entry,
							ZKPaths.makePath(path, LockDriver.SEMAPHORE_LEASES), LockDriver.firstN(permits), deadline,
							waitForOthers, interrupts)) {
						lease = publication.node();
						entry.acquired(lease);
					}
					break;
				}
				catch (SemaphoreEntry.GuardLost ex) {
					// The guard went with its session while the lease waited: take it
					// again before adding another, as Curator's waiters do
					if (reentries.isExpired()) {
						throw ex;
					}
				}
				finally {
					entry.guardedBy(null);
					releaseGuard(guardPath, guard);
				}
			}
			acquired = true;
			return new SemaphoreLease(this, entry, lease);
		}
		finally {
			entry.stopWaiting(wait);
			entry.waiting(-1, permits);
			interrupts.restore();
			if (!acquired) {
				this.entries.release(entry);
			}
		}
	}

	/**
	 * Take the semaphore's guard for {@code guard}, through the mutex engine.
	 */
	private void acquireGuard(String key, String guardPath, Holder guard, Deadline deadline, boolean waitForOthers,
			Interrupts interrupts) throws AcquireFailure, InterruptedException {
		try {
			this.mutex.acquire(key, guardPath, guard, deadline, waitForOthers, interrupts);
		}
		catch (AcquireFailure ex) {
			if (!ex.reason().isBusy()) {
				throw ex;
			}
			throw new AcquireFailure(ex.reason(), "every permit is taken, and another caller waits ahead", null);
		}
	}

	/**
	 * Let go of the guard. A guard lost with its session is no failure of the lease: a
	 * lease holds by its own place among the leases, which only ever grow behind it.
	 */
	private void releaseGuard(String guardPath, Holder guard) {
		MutexEntry held = this.mutex.entry(guardPath);
		if (held == null) {
			return;
		}
		try {
			this.mutex.release(held, guard);
		}
		catch (LockLostException ex) {
			logger.debug("The guard of a semaphore was lost while a lease was acquired: {}", ex.getMessage());
		}
	}

	/**
	 * The engine its leases' guarded transactions go to.
	 */
	Engine engine() {
		return this.engine;
	}

	/**
	 * Release a lease: delete its node, then apply the lost-lock policy.
	 */
	void release(SemaphoreEntry entry, HeldNode lease) {
		try {
			entry.released(lease);
			this.engine.awaitDelete(this.engine.deleteNode(lease.nodePath()));
		}
		finally {
			this.entries.release(entry);
		}
		this.engine.checkLost(entry, lease);
	}

	/**
	 * How many permits are free, by the number of leases in ZooKeeper. Nobody gave a
	 * wait: the list is bounded by the client's connection timeout, and fails at once if
	 * the client is not connected, as a single attempt does.
	 */
	int availablePermits(String key, String path, int permits) {
		String leases = ZKPaths.makePath(path, LockDriver.SEMAPHORE_LEASES);
		long timeout = this.engine.connectionTimeoutMs();
		String notConnected = this.engine.whyNotConnected();
		if (notConnected != null) {
			throw new AcquireFailure(LockAcquisitionException.Reason.NOT_CONNECTED, notConnected, null).toException(key,
					path, Duration.ZERO);
		}
		try {
			List<String> children = Futures.await(this.engine.listChildren(leases),
					TimeUnit.MILLISECONDS.toNanos(timeout));
			return Math.max(0, permits - children.size());
		}
		catch (KeeperException.NoNodeException ex) {
			return permits;
		}
		catch (TimeoutException ex) {
			throw new AcquireFailure(LockAcquisitionException.Reason.NO_REPLY,
					"no reply to the list of leases within " + timeout + " ms", ex)
				.toException(key, path, Duration.ofMillis(timeout));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AcquireFailure(LockAcquisitionException.Reason.INTERRUPTED, "", ex).toException(key, path,
					Duration.ZERO);
		}
		catch (Exception ex) {
			throw new AcquireFailure(LockAcquisitionException.Reason.ERROR, String.valueOf(ex), ex).toException(key,
					path, Duration.ZERO);
		}
	}

}
