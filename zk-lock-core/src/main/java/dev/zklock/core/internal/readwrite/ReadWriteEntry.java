package dev.zklock.core.internal.readwrite;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

import org.apache.curator.utils.ZKPaths;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Acquisition;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.NodeNames;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.RemoteWaiterMark;
import dev.zklock.core.internal.TableEntry;

/**
 * This JVM's state for one read/write key: a fair local read/write lock that orders this
 * JVM's threads (a waiting writer is not overtaken by readers that come after it), and
 * the ZooKeeper nodes behind the holds.
 *
 * <p>
 * All local readers share one read node, acquired by the first of them (the read
 * acquirer) while the others wait for it; a writer holds a write node of its own. Every
 * read hold is covered by a node while held: the read node, or, after a writer took the
 * read side too (a downgrade), the writer's node, which is kept until the last read hold
 * ends. So a downgrade never opens a moment in which this JVM reads with no node that
 * excludes writers.
 *
 * <p>
 * While another JVM is seen waiting behind the read node, new local readers join it only
 * a bounded number of times; then they wait for it to go and queue behind the other JVM
 * with a new one, so that a stream of local readers cannot keep a remote writer out for
 * ever.
 */
public final class ReadWriteEntry extends TableEntry {

	/**
	 * The order of this JVM's threads: fair, reentrant, write to read downgrade allowed.
	 */
	public final ReentrantReadWriteLock local = new ReentrantReadWriteLock(true);

	private final ReentrantLock state = new ReentrantLock();

	private final Condition changed = this.state.newCondition();

	/** Threads blocked on {@link #local}: {@link #close()} interrupts them. */
	private final Set<Thread> blocked = ConcurrentHashMap.newKeySet();

	/** Read holds of this JVM, each covered by a node. Guarded by state. */
	private int readHolds;

	/**
	 * Readers waiting for the read acquirer or for the read node to go. Guarded by state.
	 */
	private int joining;

	private volatile @Nullable HeldNode readNode;

	/**
	 * The writer's node, and after a downgrade the node that covers the remaining reads.
	 */
	private volatile @Nullable HeldNode writeNode;

	/** The thread holding the write side, if any. */
	private volatile @Nullable Thread writer;

	/** A thread acquiring a node in ZooKeeper for this JVM's readers or its writer. */
	private volatile @Nullable Thread acquirer;

	/**
	 * Whether another JVM may wait behind the read node, and the joins made since it was
	 * seen; the count is guarded by state.
	 */
	private final RemoteWaiterMark mark = new RemoteWaiterMark();

	/** The read node a list has shown a write node behind, if any. */
	private volatile @Nullable HeldNode writerBehind;

	private volatile boolean closed;

	private volatile @Nullable Instant heldSince;

	/** Lists the read node again when the mark is raised. */
	private final ReadWriteEngine readWrite;

	ReadWriteEntry(String key, String path, ReadWriteEngine readWrite) {
		super(key, path);
		this.readWrite = readWrite;
	}

	/**
	 * Another JVM's reader, which holds alongside the read node, fires the child watch as
	 * a writer, which waits behind it, does: the mark is raised, and the read node listed
	 * again to tell them apart.
	 */
	@Override
	public void childrenChanged() {
		noteRemoteWaiter();
		this.readWrite.listReadNode(this);
	}

	/**
	 * The mark is raised, and the read node listed again with the watch.
	 */
	@Override
	public void childWatchRemoved() {
		noteRemoteWaiter();
		this.readWrite.listReadNode(this);
	}

	@Override
	public void connectionDown() {
		noteRemoteWaiter();
	}

	/**
	 * How {@link #join} ended.
	 */
	enum Join {

		/** The read hold is covered by a node: held. */
		JOINED,

		/** Nobody acquires a read node: the caller does, for every local reader. */
		ACQUIRE,

		/** Not joined within the deadline. */
		TIMED_OUT,

		/** The registry was closed. */
		CLOSED

	}

	/**
	 * Take the local side of a lock, waiting in the local lock's fair order until the
	 * deadline.
	 * @return whether it was taken
	 * @throws AcquireFailure if the registry closed while we waited
	 */
	boolean lockLocally(Lock lock, Deadline deadline, boolean wait, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		Thread current = Thread.currentThread();
		this.blocked.add(current);
		try {
			boolean queued = false;
			while (true) {
				if (this.closed) {
					throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
				}
				try {
					if (!queued) {
						// A timed try, even of zero, keeps the fair order that tryLock()
						// would skip
						if (lock.tryLock(0, TimeUnit.NANOSECONDS)) {
							return true;
						}
						queued = true;
						deadline.queuedBehind(LockAcquisitionException.Reason.HELD_LOCALLY,
								"queued behind another holder in this JVM");
						if (!wait) {
							return false;
						}
					}
					if (deadline.isInfinite()) {
						lock.lockInterruptibly();
						return true;
					}
					return lock.tryLock(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					if (this.closed) {
						// Interrupted by close(), not by the caller
						throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
					}
					interrupts.interrupted(ex);
				}
			}
		}
		finally {
			this.blocked.remove(current);
		}
	}

	/**
	 * Count a read hold of the current thread in, which holds the local read side:
	 * covered by the read node, by the writer's node, or after the read acquirer gets a
	 * node.
	 * @param reentrant whether the thread already holds the read or the write side, so
	 * that it must join at once (it would otherwise wait for itself)
	 * @param maxJoins how many readers may join while another JVM waits behind the read
	 * node
	 * @param currentSession the client's session: a node of another, or not known held,
	 * is not joined; the reader waits for it to go and takes a new one
	 */
	Join join(boolean reentrant, int maxJoins, long currentSession, Deadline deadline, boolean wait,
			Interrupts interrupts) throws InterruptedException {
		this.state.lock();
		try {
			boolean counted = false;
			try {
				while (true) {
					if (this.closed && !reentrant) {
						return Join.CLOSED;
					}
					boolean covered = this.readNode != null || this.writeNode != null;
					// As for a hand-off: only a node known held on the client's session
					// is joined
					boolean joinable = reentrant
							|| (isHeldOn(this.readNode, currentSession) || isHeldOn(this.writeNode, currentSession))
									&& this.mark.allowsPass(maxJoins);
					if (covered && joinable) {
						if (this.mark.isRaised() && !reentrant) {
							this.mark.countPass();
						}
						countReadHold();
						return Join.JOINED;
					}
					if (!covered && this.acquirer == null) {
						this.acquirer = Thread.currentThread();
						return Join.ACQUIRE;
					}
					long remaining = deadline.remainingNanos();
					if (!wait || remaining <= 0) {
						return Join.TIMED_OUT;
					}
					if (!counted) {
						this.joining++;
						counted = true;
						deadline.queuedBehind(LockAcquisitionException.Reason.HELD_REMOTELY,
								"waiting with this JVM's other readers for their read node");
					}
					try {
						if (deadline.isInfinite()) {
							this.changed.await();
						}
						else {
							this.changed.awaitNanos(remaining);
						}
					}
					catch (InterruptedException ex) {
						interrupts.interrupted(ex);
					}
				}
			}
			finally {
				if (counted) {
					this.joining--;
				}
			}
		}
		finally {
			this.state.unlock();
		}
	}

	private static boolean isHeldOn(@Nullable HeldNode node, long session) {
		return node != null && node.state() == LeaseState.HELD && node.sessionId() == session;
	}

	/** Guarded by state. */
	private void countReadHold() {
		if (this.readHolds++ == 0 && this.writer == null) {
			this.heldSince = Instant.now();
		}
	}

	/**
	 * The read acquirer got the read node: every waiting reader joins it.
	 */
	void readAcquired(HeldNode node) {
		this.state.lock();
		try {
			this.readNode = node;
			this.acquirer = null;
			this.mark.resetCount();
			countReadHold();
			this.changed.signalAll();
		}
		finally {
			this.state.unlock();
		}
	}

	/**
	 * The read acquirer gave up: a waiting reader with time left takes its place.
	 */
	void readAcquireFailed() {
		this.state.lock();
		try {
			if (this.acquirer == Thread.currentThread()) {
				this.acquirer = null;
			}
			this.changed.signalAll();
		}
		finally {
			this.state.unlock();
		}
	}

	/**
	 * End a read hold; the last one deletes the node that covered the reads.
	 * @return the node that covered the hold, and the delete if one was sent
	 */
	Release leaveRead(Engine engine) {
		this.state.lock();
		try {
			HeldNode covering = (this.readNode != null) ? this.readNode : this.writeNode;
			CompletableFuture<Void> delete = null;
			if (--this.readHolds == 0) {
				HeldNode read = this.readNode;
				if (read != null) {
					this.readNode = null;
					this.mark.lower();
					delete = engine.deleteNode(read.nodePath());
				}
				HeldNode write = this.writeNode;
				if (write != null && this.writer == null) {
					// Kept after a downgrade for the reads that followed it: they are
					// done
					this.writeNode = null;
					delete = engine.deleteNode(write.nodePath());
				}
				if (this.writer == null) {
					this.heldSince = null;
				}
				this.changed.signalAll();
			}
			return new Release(covering, delete);
		}
		finally {
			this.state.unlock();
		}
	}

	/**
	 * Note the thread acquiring the write node, so that {@link #close()} can wake it.
	 */
	void acquiringWrite(@Nullable Thread thread) {
		this.acquirer = thread;
	}

	/**
	 * The writer got its node.
	 */
	void writeAcquired(Thread thread, HeldNode node) {
		this.state.lock();
		try {
			this.writeNode = node;
			this.writer = thread;
			this.heldSince = Instant.now();
		}
		finally {
			this.state.unlock();
		}
	}

	/**
	 * End the outermost write hold. Reads the writer took meanwhile keep its node: it
	 * covers them until the last of them ends.
	 * @return the writer's node, and its delete if one was sent
	 */
	Release leaveWrite(Engine engine) {
		this.state.lock();
		try {
			HeldNode node = this.writeNode;
			this.writer = null;
			CompletableFuture<Void> delete = null;
			if (this.readHolds == 0) {
				this.heldSince = null;
				if (node != null) {
					this.writeNode = null;
					delete = engine.deleteNode(node.nodePath());
				}
			}
			this.changed.signalAll();
			return new Release(node, delete);
		}
		finally {
			this.state.unlock();
		}
	}

	/**
	 * The node behind the current thread's hold: the write node for the writer, else the
	 * node covering the reads.
	 */
	@Nullable HeldNode heldNodeOf(boolean write) {
		HeldNode write0 = this.writeNode;
		if (write) {
			return write0;
		}
		HeldNode read = this.readNode;
		return (read != null) ? read : write0;
	}

	/**
	 * Who holds the key in this JVM, for a failure message.
	 */
	String localHolder() {
		Thread owner = this.writer;
		if (owner != null) {
			return "writer thread '" + owner.getName() + "'";
		}
		int readers = this.local.getReadLockCount();
		return (readers > 0) ? readers + " read holds of this JVM" : "";
	}

	@Override
	public void noteRemoteWaiter() {
		this.mark.raise();
	}

	@Override
	public void noRemoteWaiter() {
		clearRemoteWaiter(null);
	}

	/**
	 * The read node that this JVM's readers join, if it holds one without a write node:
	 * only behind a read node can another participant queue without waiting for it.
	 */
	private @Nullable HeldNode soleReadNode() {
		return (this.writeNode == null) ? this.readNode : null;
	}

	/**
	 * The read node to list the children for, if the mark is raised while it is held and
	 * no list has shown a write node behind it.
	 */
	@Nullable HeldNode readNodeToList() {
		HeldNode read = soleReadNode();
		return (this.mark.isRaised() && read != null && read != this.writerBehind) ? read : null;
	}

	/**
	 * Told, on the client's event thread, a child list read with the child watch while
	 * {@code read} was the read node and the mark raised: if no write node waits behind
	 * it, the mark was raised by another JVM's reader, and is cleared.
	 */
	void readNodeListed(HeldNode read, List<String> children) {
		List<String> queue = NodeNames.inQueueOrder(children);
		int ours = queue.indexOf(ZKPaths.getNodeFromPath(read.nodePath()));
		if (ours < 0) {
			return;
		}
		if (LockDriver.READ.othersWaitBehind(queue, ours)) {
			// It waits until the node goes: no later list could clear the mark
			this.writerBehind = read;
		}
		else {
			clearRemoteWaiter(read);
		}
	}

	/**
	 * Clear the mark, if {@code read} is still the read node (any node, if null), and let
	 * the readers it held back join again: nobody else queues now.
	 */
	private void clearRemoteWaiter(@Nullable HeldNode read) {
		if (!this.mark.isRaised()) {
			return;
		}
		this.state.lock();
		try {
			if (read != null && soleReadNode() != read) {
				// Listed for a node that went: the next node's own list tells
				return;
			}
			this.mark.clearAndReset();
			this.changed.signalAll();
		}
		finally {
			this.state.unlock();
		}
	}

	@Override
	public void heldNodesChanged() {
		// Readers wait to join a node that is not known held (during an outage); the
		// reconnect that makes it HELD again is their signal
		this.state.lock();
		try {
			this.changed.signalAll();
		}
		finally {
			this.state.unlock();
		}
	}

	@Override
	public boolean isClosed() {
		return this.closed;
	}

	@Override
	public void close() {
		this.state.lock();
		try {
			this.closed = true;
			this.changed.signalAll();
		}
		finally {
			this.state.unlock();
		}
		this.blocked.forEach(Thread::interrupt);
		Thread thread = this.acquirer;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	@Override
	public boolean isIdle() {
		this.state.lock();
		try {
			return this.readHolds == 0 && this.readNode == null && this.writeNode == null && this.acquirer == null
					&& this.writer == null && !this.local.isWriteLocked() && this.local.getReadLockCount() == 0
					&& !this.local.hasQueuedThreads();
		}
		finally {
			this.state.unlock();
		}
	}

	@Override
	public boolean isHeld() {
		return this.heldSince != null;
	}

	@Override
	public void forEachHeldNode(Consumer<HeldNode> action) {
		HeldNode read = this.readNode;
		if (read != null) {
			action.accept(read);
		}
		HeldNode write = this.writeNode;
		if (write != null) {
			action.accept(write);
		}
	}

	@Override
	public LocalLockInfo info() {
		Thread owner = this.writer;
		int readers;
		this.state.lock();
		try {
			readers = this.readHolds;
		}
		finally {
			this.state.unlock();
		}
		return snapshot(isHeld(), (owner != null) ? owner.getName() : null, this.heldSince, heldNodeOf(owner != null),
				LockKind.READ_WRITE, readers, 0, false);
	}

	/**
	 * What ending a hold did.
	 *
	 * @param node the node that backed the hold, if any
	 * @param delete the first try to delete the node, if the hold was the last it covered
	 */
	record Release(@Nullable HeldNode node, @Nullable CompletableFuture<Void> delete) {
	}

}
