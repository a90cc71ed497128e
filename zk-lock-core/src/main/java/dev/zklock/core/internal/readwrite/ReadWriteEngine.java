package dev.zklock.core.internal.readwrite;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkReadWriteLock;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.LockTable;
import dev.zklock.core.internal.Publication;

/**
 * Acquire and release for read/write keys: the local side first, in the fair order of the
 * entry's local lock, then the node behind it: the shared read node, or the writer's own.
 */
public final class ReadWriteEngine {

	private final Engine engine;

	private final LockTable<ReadWriteEntry> entries;

	public ReadWriteEngine(Engine engine) {
		this.engine = engine;
		this.entries = engine.newTable(this::newEntry);
	}

	private ReadWriteEntry newEntry(String key, String path) {
		return new ReadWriteEntry(key, path, this.engine);
	}

	public ZkReadWriteLock obtain(String key, String path) {
		return new DefaultZkReadWriteLock(this, key, path);
	}

	/**
	 * The engine its locks' guarded transactions and revocation listeners go to.
	 */
	Engine engine() {
		return this.engine;
	}

	public @Nullable ReadWriteEntry entry(String path) {
		return this.entries.get(path);
	}

	/**
	 * Acquire the read side for the current thread. A thread that reads or writes already
	 * joins at once, with no ZooKeeper request.
	 */
	void acquireRead(String key, String path, Deadline deadline, boolean waitForOthers, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		ReadWriteEntry entry = this.engine.retain(this.entries, key, path);
		Object wait = entry.startWaiting(LocalWaiter.Mode.READ);
		boolean acquired = false;
		boolean locked = false;
		try {
			boolean reentrant = entry.local.getReadHoldCount() > 0 || entry.local.isWriteLockedByCurrentThread();
			if (reentrant) {
				// Never waits: a fair lock still grants a read to a thread that reads or
				// writes
				entry.local.readLock().lock();
				locked = true;
			}
			else if (!entry.lockLocally(entry.local.readLock(), deadline, waitForOthers, interrupts)) {
				throw new AcquireFailure(LockAcquisitionException.Reason.HELD_LOCALLY, localHolder(entry), null);
			}
			locked = true;
			switch (entry.join(reentrant, this.engine.maxLocalHandoffs(), this.engine.currentSession(), deadline,
					waitForOthers, interrupts)) {
				case JOINED -> acquired = true;
				case CLOSED -> throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
				case TIMED_OUT -> throw new AcquireFailure(LockAcquisitionException.Reason.HELD_REMOTELY,
						"waiting with this JVM's other readers for their read node", null);
				case ACQUIRE -> {
					try {
						try (Publication publication = this.engine.acquireNode(entry, entry.path(), LockDriver.READ,
								deadline, waitForOthers, interrupts)) {
							entry.readAcquired(publication.node());
						}
						acquired = true;
						// A reader of another JVM that came as the node was installed
						// raised the mark with no node to list for
						entry.settle();
					}
					finally {
						if (!acquired) {
							entry.readAcquireFailed();
						}
					}
				}
			}
		}
		finally {
			entry.stopWaiting(wait);
			interrupts.restore();
			if (!acquired) {
				if (locked) {
					entry.local.readLock().unlock();
				}
				this.entries.release(entry);
			}
		}
	}

	/**
	 * Acquire the write side for the current thread: reentrant for the writer, refused to
	 * a reader.
	 */
	void acquireWrite(String key, String path, Deadline deadline, boolean waitForOthers, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		ReadWriteEntry entry = this.engine.retain(this.entries, key, path);
		Object wait = entry.startWaiting(LocalWaiter.Mode.WRITE);
		boolean acquired = false;
		boolean locked = false;
		try {
			if (entry.local.getReadHoldCount() > 0 && !entry.local.isWriteLockedByCurrentThread()) {
				throw new IllegalStateException("Thread '" + Thread.currentThread().getName()
						+ "' holds the read lock of '" + key + "' (" + path
						+ ") and asked for its write lock: upgrading would wait for ever for its own read. "
						+ "Release the read lock first, or take the write lock from the start");
			}
			if (!entry.lockLocally(entry.local.writeLock(), deadline, waitForOthers, interrupts)) {
				throw new AcquireFailure(LockAcquisitionException.Reason.HELD_LOCALLY, localHolder(entry), null);
			}
			locked = true;
			if (entry.local.getWriteHoldCount() > 1) {
				acquired = true;
				return;
			}
			entry.acquiringWrite(Thread.currentThread());
			try {
				try (Publication publication = this.engine.acquireNode(entry, entry.path(), LockDriver.WRITE, deadline,
						waitForOthers, interrupts)) {
					entry.writeAcquired(Thread.currentThread(), publication.node());
				}
				acquired = true;
			}
			finally {
				entry.acquiringWrite(null);
			}
		}
		finally {
			entry.stopWaiting(wait);
			interrupts.restore();
			if (!acquired) {
				if (locked) {
					entry.local.writeLock().unlock();
				}
				this.entries.release(entry);
			}
		}
	}

	/**
	 * End one read hold of the current thread.
	 */
	void releaseRead(ReadWriteEntry entry) {
		EntryNodes.Release release = entry.leaveRead(this.engine);
		// After the delete was sent: a local writer's create then follows it in the
		// session
		entry.local.readLock().unlock();
		forgetListeners(entry);
		finish(entry, release);
	}

	/**
	 * End one write hold of the current thread; the outermost deletes the write node,
	 * unless the writer reads on.
	 */
	void releaseWrite(ReadWriteEntry entry) {
		if (entry.local.getWriteHoldCount() > 1) {
			entry.local.writeLock().unlock();
			this.entries.release(entry);
			return;
		}
		EntryNodes.Release release = entry.leaveWrite(this.engine);
		entry.local.writeLock().unlock();
		forgetListeners(entry);
		finish(entry, release);
	}

	/**
	 * A thread that holds neither side any more is told of no revocation request.
	 */
	private static void forgetListeners(ReadWriteEntry entry) {
		if (entry.local.getReadHoldCount() == 0 && !entry.local.isWriteLockedByCurrentThread()) {
			Holder current = Holder.currentThread();
			entry.forEachHeldNode((node) -> node.removeRevocationListeners(current));
		}
	}

	private void finish(ReadWriteEntry entry, EntryNodes.Release release) {
		try {
			this.engine.awaitDelete(release.delete());
		}
		finally {
			this.entries.release(entry);
		}
		this.engine.checkLost(entry, release.node());
	}

	/**
	 * Who holds a key in this JVM, for a failure message.
	 */
	private static String localHolder(ReadWriteEntry entry) {
		Thread owner = entry.writer();
		if (owner != null) {
			return "writer thread '" + owner.getName() + "'";
		}
		int readers = entry.local.getReadLockCount();
		return (readers > 0) ? readers + " read holds of this JVM" : "";
	}

}
