package dev.zklock.core;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

/**
 * This JVM's state for one key: the local FIFO queue of threads (or leases) that want it, the one
 * that holds it, and the ZooKeeper {@link Lease} the holder uses.
 *
 * <p>The local slot is granted, never grabbed: a releasing holder hands the slot, and with it
 * possibly the lease, to the head of the queue under the entry's mutex. So a waiter that times
 * out either was granted (and holds) or was never granted (and leaves the queue); no lease can
 * be left with nobody to release it.
 */
final class LockEntry {

	private final String key;

	private final String path;

	private final ReentrantLock mutex = new ReentrantLock();

	private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

	/** Who holds the local slot: a {@link Thread} or a {@link ZkLease}. Guarded by mutex. */
	private @Nullable Object holder;

	/** The ZooKeeper node this JVM holds for the key; guarded by mutex for writes. */
	private volatile @Nullable Lease lease;

	/** Set by the child watch when another participant joins the queue behind our node. */
	private volatile boolean remoteWaiting;

	/** Hand-offs made since a remote waiter was noticed; guarded by mutex. */
	private int handoffsWhileRemoteWaiting;

	/** The holding thread, for the reentrant fast path; null for leases. */
	private volatile @Nullable Thread ownerThread;

	/** Reentrant holds of the owner thread; only the owner thread touches it. */
	private int holds;

	private volatile @Nullable Instant heldSince;

	/** Threads and leases inside acquire or holding; guarded by the registry map's bin lock. */
	int refs;

	private final Watcher childWatcher = (event) -> {
		if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
			this.remoteWaiting = true;
		}
	};

	LockEntry(String key, String path) {
		this.key = key;
		this.path = path;
	}

	String key() {
		return this.key;
	}

	String path() {
		return this.path;
	}

	Watcher childWatcher() {
		return this.childWatcher;
	}

	void remoteWaiting(boolean remoteWaiting) {
		this.remoteWaiting = remoteWaiting;
	}

	@Nullable Thread ownerThread() {
		return this.ownerThread;
	}

	@Nullable Lease lease() {
		return this.lease;
	}

	@Nullable Instant heldSince() {
		return this.heldSince;
	}

	/** Only the owner thread calls this. */
	int incrementHolds() {
		return ++this.holds;
	}

	/** Only the owner thread calls this. */
	int decrementHolds() {
		return --this.holds;
	}

	int waiterCount() {
		this.mutex.lock();
		try {
			return this.waiters.size();
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Waiters in the local queue, plus the head if it is still acquiring in ZooKeeper.
	 */
	int waitingCount() {
		this.mutex.lock();
		try {
			return this.waiters.size() + ((this.holder != null && this.heldSince == null) ? 1 : 0);
		}
		finally {
			this.mutex.unlock();
		}
	}

	boolean isHeld() {
		return this.heldSince != null;
	}

	/**
	 * Take the local slot for {@code who}, waiting in FIFO order until the deadline.
	 * @return whether the slot was granted
	 */
	boolean acquireSlot(Object who, Deadline deadline, Interrupts interrupts) throws InterruptedException {
		Waiter waiter;
		this.mutex.lock();
		try {
			if (this.holder == null && this.waiters.isEmpty()) {
				this.holder = who;
				return true;
			}
			if (deadline.isExpired()) {
				return false;
			}
			waiter = new Waiter(Thread.currentThread(), who);
			this.waiters.addLast(waiter);
		}
		finally {
			this.mutex.unlock();
		}
		while (!waiter.granted) {
			long remaining = deadline.remainingNanos();
			boolean interrupted = Thread.interrupted();
			if (interrupted) {
				try {
					interrupts.interrupted(new InterruptedException());
				}
				catch (InterruptedException ex) {
					if (!leaveQueue(waiter)) {
						// Granted while we were interrupted: take it, keep the interrupt for later
						Thread.currentThread().interrupt();
						return true;
					}
					throw ex;
				}
			}
			if (remaining <= 0) {
				return !leaveQueue(waiter);
			}
			if (deadline.isInfinite()) {
				LockSupport.park(this);
			}
			else {
				LockSupport.parkNanos(this, remaining);
			}
		}
		return true;
	}

	/**
	 * Leave the queue unless already granted. Returns whether we left.
	 */
	private boolean leaveQueue(Waiter waiter) {
		this.mutex.lock();
		try {
			if (waiter.granted) {
				return false;
			}
			this.waiters.remove(waiter);
			return true;
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Return the lease handed over with the slot if it can still be used; one that cannot is
	 * given to the reaper, and the holder must acquire afresh.
	 */
	@Nullable Lease takeOverLease(NodeReaper reaper) {
		this.mutex.lock();
		try {
			Lease current = this.lease;
			if (current != null && current.state() != LeaseState.HELD) {
				this.lease = null;
				reaper.delete(current.nodePath());
				return null;
			}
			return current;
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Record the newly acquired lease and the holder.
	 */
	void held(Object who, @Nullable Lease newLease) {
		this.mutex.lock();
		try {
			if (newLease != null) {
				this.lease = newLease;
				this.handoffsWhileRemoteWaiting = 0;
			}
			this.ownerThread = (who instanceof Thread thread) ? thread : null;
			this.holds = 1;
			this.heldSince = Instant.now();
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Give up the local slot: pass it to the next waiter, with the lease if hand-off is allowed,
	 * else delete the lease's node first.
	 */
	Release releaseSlot(Object who, int maxLocalHandoffs, NodeReaper reaper) {
		this.mutex.lock();
		try {
			if (this.holder != who) {
				throw new IllegalMonitorStateException("Lock '" + this.key + "' is not held by " + who);
			}
			Lease current = this.lease;
			Waiter next = this.waiters.peekFirst();
			CompletableFuture<Void> delete = null;
			boolean handedOff = false;
			if (current != null) {
				boolean remote = this.remoteWaiting;
				handedOff = next != null && maxLocalHandoffs > 0 && current.state() == LeaseState.HELD
						&& (!remote || this.handoffsWhileRemoteWaiting < maxLocalHandoffs);
				if (handedOff) {
					if (remote) {
						this.handoffsWhileRemoteWaiting++;
					}
				}
				else {
					this.lease = null;
					this.remoteWaiting = false;
					this.handoffsWhileRemoteWaiting = 0;
					// Sent before the next waiter's create: one session's requests are applied in order
					delete = reaper.delete(current.nodePath());
				}
			}
			this.ownerThread = null;
			this.heldSince = null;
			this.holds = 0;
			if (next != null) {
				this.waiters.pollFirst();
				this.holder = next.who;
				next.granted = true;
				LockSupport.unpark(next.thread);
			}
			else {
				this.holder = null;
			}
			return new Release(current, delete, handedOff);
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Give up the slot after a failed acquisition: no lease was taken, the next waiter tries.
	 */
	void abandonSlot(Object who) {
		this.mutex.lock();
		try {
			if (this.holder != who) {
				return;
			}
			Waiter next = this.waiters.pollFirst();
			if (next != null) {
				this.holder = next.who;
				next.granted = true;
				LockSupport.unpark(next.thread);
			}
			else {
				this.holder = null;
			}
		}
		finally {
			this.mutex.unlock();
		}
	}

	boolean isIdle() {
		this.mutex.lock();
		try {
			return this.holder == null && this.waiters.isEmpty() && this.lease == null;
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Return the threads waiting, in queue order, for diagnostics.
	 */
	String describeWaiters() {
		this.mutex.lock();
		try {
			StringBuilder sb = new StringBuilder();
			for (Iterator<Waiter> it = this.waiters.iterator(); it.hasNext();) {
				sb.append(it.next().thread.getName());
				if (it.hasNext()) {
					sb.append(", ");
				}
			}
			return sb.toString();
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * What a release did.
	 * @param lease the lease that backed the hold, if any
	 * @param delete the first try to delete its node, if it was released in ZooKeeper
	 * @param handedOff whether the lease passed to the next local waiter
	 */
	record Release(@Nullable Lease lease, @Nullable CompletableFuture<Void> delete, boolean handedOff) {
	}

	private static final class Waiter {

		final Thread thread;

		final Object who;

		volatile boolean granted;

		Waiter(Thread thread, Object who) {
			this.thread = thread;
			this.who = who;
		}

	}

}
