package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The {@link ZkLock} handed out by {@link ZkLockRegistry#obtain(String)}: a key and its path; the
 * state lives in the registry's entry for the key, and only while someone holds or waits.
 */
final class DefaultZkLock implements ZkLock {

	private final ZkLockRegistry registry;

	private final String key;

	private final String path;

	DefaultZkLock(ZkLockRegistry registry, String key, String path) {
		this.registry = registry;
		this.key = key;
		this.path = path;
	}

	@Override
	public void lock() {
		if (reenter()) {
			return;
		}
		try {
			this.registry.acquire(this.key, this.path, Thread.currentThread(), Deadline.never(), true,
					Interrupts.deferred());
		}
		catch (AcquireFailure ex) {
			throw ex.toException(this.key, this.path, Duration.ZERO);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible lock was interrupted", ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (reenter()) {
			return;
		}
		try {
			this.registry.acquire(this.key, this.path, Thread.currentThread(), Deadline.never(), true,
					Interrupts.interruptible());
		}
		catch (AcquireFailure ex) {
			throw ex.toException(this.key, this.path, Duration.ZERO);
		}
	}

	@Override
	public boolean tryLock() {
		if (reenter()) {
			return true;
		}
		Interrupts interrupts = Interrupts.deferred();
		try {
			this.registry.acquire(this.key, this.path, Thread.currentThread(), Deadline.after(0), false, interrupts);
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
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (reenter()) {
			return true;
		}
		Duration wait = Duration.ofNanos(unit.toNanos(Math.max(0, time)));
		try {
			this.registry.acquire(this.key, this.path, Thread.currentThread(), Deadline.after(wait), !wait.isZero(),
					Interrupts.interruptible());
			return true;
		}
		catch (AcquireFailure ex) {
			return failedAttempt(ex, wait);
		}
	}

	@Override
	public void acquire(Duration wait) {
		if (reenter()) {
			return;
		}
		this.registry.acquireOrThrow(this.key, this.path, Thread.currentThread(), wait);
	}

	@Override
	public void unlock() {
		LockEntry entry = ownEntry();
		if (entry.decrementHolds() > 0) {
			return;
		}
		this.registry.release(entry, Thread.currentThread());
	}

	@Override
	public ZkLease toLease() {
		LockEntry entry = ownEntry();
		DefaultZkLease lease = new DefaultZkLease(this.registry, this.key, this.path);
		entry.transfer(Thread.currentThread(), lease);
		lease.acquired(entry);
		return lease;
	}

	@Override
	public boolean isHeldByCurrentThread() {
		LockEntry entry = this.registry.entry(this.key);
		return entry != null && entry.ownerThread() == Thread.currentThread();
	}

	@Override
	public long fencingToken() {
		return heldLease().fencingToken();
	}

	@Override
	public LeaseState leaseState() {
		return heldLease().state();
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String path() {
		return this.path;
	}

	@Override
	public String toString() {
		return "ZkLock[" + this.path + "]";
	}

	/**
	 * The reentrant fast path: no ZooKeeper request, no map write.
	 */
	private boolean reenter() {
		LockEntry entry = this.registry.entry(this.key);
		if (entry != null && entry.ownerThread() == Thread.currentThread()) {
			entry.incrementHolds();
			return true;
		}
		return false;
	}

	private LockEntry ownEntry() {
		LockEntry entry = this.registry.entry(this.key);
		if (entry == null || entry.ownerThread() != Thread.currentThread()) {
			throw new IllegalMonitorStateException(
					"Lock '" + this.key + "' is not held by the current thread " + Thread.currentThread().getName());
		}
		return entry;
	}

	private Lease heldLease() {
		Lease lease = ownEntry().lease();
		if (lease == null) {
			throw new IllegalMonitorStateException("Lock '" + this.key + "' has no lease");
		}
		return lease;
	}

	private boolean failedAttempt(AcquireFailure ex, @Nullable Duration wait) {
		if (ex.reason() == LockAcquisitionException.Reason.ERROR || ex.reason() == LockAcquisitionException.Reason.CLOSED) {
			throw ex.toException(this.key, this.path, (wait != null) ? wait : Duration.ZERO);
		}
		return false;
	}

}
