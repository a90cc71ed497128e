package dev.zklock.core.internal.mutex;

import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.ThreadOwnedLock;

/**
 * The {@link ZkLock} handed out by
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtain(String)}: a key and its path; the
 * state lives in the registry's entry for the key, and only while someone holds or waits.
 */
public final class DefaultZkLock extends ThreadOwnedLock {

	private final MutexEngine mutex;

	public DefaultZkLock(MutexEngine mutex, String key, String path) {
		super(mutex.engine(), key, path);
		this.mutex = mutex;
	}

	@Override
	public void acquire(Deadline deadline, boolean waitForOthers, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		this.mutex.acquire(key(), path(), Holder.currentThread(), deadline, waitForOthers, interrupts);
	}

	@Override
	public void unlock() {
		MutexEntry entry = ownEntry();
		if (entry.hold().decrement() > 0) {
			return;
		}
		this.mutex.release(entry, Holder.currentThread());
	}

	@Override
	public ZkLease toLease() {
		MutexEntry entry = ownEntry();
		DefaultZkLease lease = new DefaultZkLease(this.mutex, key(), path());
		entry.transfer(Thread.currentThread(), Holder.handle(lease));
		lease.acquired(entry);
		return lease;
	}

	@Override
	public boolean isHeldByCurrentThread() {
		MutexEntry entry = this.mutex.entry(path());
		return entry != null && entry.hold().ownerThread() == Thread.currentThread();
	}

	@Override
	public String toString() {
		return "ZkLock[" + path() + "]";
	}

	/**
	 * The reentrant fast path: no ZooKeeper request, no map write.
	 */
	@Override
	public boolean reenter() {
		MutexEntry entry = this.mutex.entry(path());
		if (entry != null && entry.hold().ownerThread() == Thread.currentThread()) {
			checkNotLost(entry.node());
			entry.hold().increment();
			return true;
		}
		return false;
	}

	private MutexEntry ownEntry() {
		MutexEntry entry = this.mutex.entry(path());
		if (entry == null || entry.hold().ownerThread() != Thread.currentThread()) {
			throw new IllegalMonitorStateException(
					"Lock '" + key() + "' is not held by the current thread " + Thread.currentThread().getName());
		}
		return entry;
	}

	@Override
	public HeldNode heldNode() {
		HeldNode node = ownEntry().node();
		if (node == null) {
			throw new IllegalMonitorStateException("Lock '" + key() + "' has no lease");
		}
		return node;
	}

}
