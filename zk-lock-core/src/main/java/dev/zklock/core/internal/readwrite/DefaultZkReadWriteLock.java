package dev.zklock.core.internal.readwrite;

import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkReadWriteLock;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.ThreadOwnedLock;

/**
 * The {@link ZkReadWriteLock} handed out by
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainReadWrite(String)}: a key, its
 * path, and its two sides; the state lives in the engine's entry for the key, and only
 * while someone holds or waits.
 */
public final class DefaultZkReadWriteLock implements ZkReadWriteLock {

	private final ReadWriteEngine readWrite;

	private final String key;

	private final String path;

	private final ZkLock readLock;

	private final ZkLock writeLock;

	DefaultZkReadWriteLock(ReadWriteEngine readWrite, String key, String path) {
		this.readWrite = readWrite;
		this.key = key;
		this.path = path;
		this.readLock = new Side(false);
		this.writeLock = new Side(true);
	}

	@Override
	public ZkLock readLock() {
		return this.readLock;
	}

	@Override
	public ZkLock writeLock() {
		return this.writeLock;
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
		return "ZkReadWriteLock[" + this.path + "]";
	}

	/**
	 * One side of the lock.
	 */
	private final class Side extends ThreadOwnedLock {

		private final boolean write;

		Side(boolean write) {
			super(DefaultZkReadWriteLock.this.readWrite.engine(), DefaultZkReadWriteLock.this.key,
					DefaultZkReadWriteLock.this.path);
			this.write = write;
		}

		@Override
		public boolean reenter() {
			// Only a writer's own write is free of the engine: a read joins a count under
			// a lock.
			ReadWriteEntry entry = DefaultZkReadWriteLock.this.readWrite.entry(path());
			if (entry != null && (entry.local.getReadHoldCount() > 0 || entry.local.isWriteLockedByCurrentThread())) {
				// Also a downgrade: a read would join the writer's node
				checkNotLost(entry.heldNodeOf(this.write));
			}
			if (this.write && entry != null && entry.local.isWriteLockedByCurrentThread()) {
				entry.local.writeLock().lock();
				if (entry.tryRetain()) {
					return true;
				}
				entry.local.writeLock().unlock();
			}
			return false;
		}

		@Override
		public void acquire(Deadline deadline, boolean waitForOthers, Interrupts interrupts)
				throws AcquireFailure, InterruptedException {
			if (this.write) {
				DefaultZkReadWriteLock.this.readWrite.acquireWrite(key(), path(), deadline, waitForOthers, interrupts);
			}
			else {
				DefaultZkReadWriteLock.this.readWrite.acquireRead(key(), path(), deadline, waitForOthers, interrupts);
			}
		}

		@Override
		public void unlock() {
			ReadWriteEntry entry = ownEntry();
			if (this.write) {
				DefaultZkReadWriteLock.this.readWrite.releaseWrite(entry);
			}
			else {
				DefaultZkReadWriteLock.this.readWrite.releaseRead(entry);
			}
		}

		@Override
		public boolean isHeldByCurrentThread() {
			ReadWriteEntry entry = DefaultZkReadWriteLock.this.readWrite.entry(path());
			return entry != null && holds(entry);
		}

		@Override
		public ZkLease toLease() {
			throw new UnsupportedOperationException("The " + side() + " lock of '" + key()
					+ "' is held by a thread and cannot be handed to a lease; read/write locks are for work that ends on the thread that began it");
		}

		@Override
		public String toString() {
			return "ZkLock[" + path() + ", " + side() + "]";
		}

		private boolean holds(ReadWriteEntry entry) {
			return this.write ? entry.local.isWriteLockedByCurrentThread() : entry.local.getReadHoldCount() > 0;
		}

		private ReadWriteEntry ownEntry() {
			ReadWriteEntry entry = DefaultZkReadWriteLock.this.readWrite.entry(path());
			if (entry == null || !holds(entry)) {
				throw new IllegalMonitorStateException("The " + side() + " lock of '" + key()
						+ "' is not held by the current thread " + Thread.currentThread().getName());
			}
			return entry;
		}

		@Override
		public HeldNode heldNode() {
			HeldNode node = ownEntry().heldNodeOf(this.write);
			if (node == null) {
				throw new IllegalMonitorStateException("The " + side() + " lock of '" + key() + "' has no lease");
			}
			return node;
		}

		private String side() {
			return this.write ? "write" : "read";
		}

	}

}
