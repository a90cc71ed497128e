package dev.zklock.core.internal.readwrite;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Interrupts;
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
 *
 * <p>
 * The entry composes the steps of an acquisition and acts on them under its state lock:
 * the local lock's fair order ({@link LocalAdmission}), the join of the read node (here),
 * the nodes and which covers the reads ({@link EntryNodes}), and the reactions to other
 * JVMs' waiters (the {@link RemoteWaiterMark}, settled by a {@link ReadNodeSettler}).
 */
public final class ReadWriteEntry extends TableEntry {

	/**
	 * The order of this JVM's threads: fair, reentrant, write to read downgrade allowed.
	 */
	public final ReentrantReadWriteLock local = new ReentrantReadWriteLock(true);

	private final ReentrantLock state = new ReentrantLock();

	private final Condition changed = this.state.newCondition();

	/**
	 * Admits threads to {@link #local} in its order: the first step of each acquisition.
	 */
	private final LocalAdmission admission = new LocalAdmission(this::isClosed);

	/**
	 * Readers waiting for the read acquirer or for the read node to go. Guarded by state.
	 */
	private int joining;

	/** A thread acquiring a node in ZooKeeper for this JVM's readers or its writer. */
	private volatile @Nullable Thread acquirer;

	/**
	 * Whether another JVM may wait behind the read node, and the joins made since it was
	 * seen; the count is guarded by state.
	 */
	private final RemoteWaiterMark mark = new RemoteWaiterMark();

	/**
	 * The read and write nodes, and the holds they cover. Guarded by state for writes.
	 */
	private final EntryNodes nodes = new EntryNodes(this.mark);

	/** Lists the read node again while the mark is raised, to clear it. */
	private final ReadNodeSettler settler;

	private volatile boolean closed;

	ReadWriteEntry(String key, String path, Engine engine) {
		super(key, path);
		this.settler = new ReadNodeSettler(this.nodes, path, this.state, this.changed, this.mark, engine);
	}

	/**
	 * Another JVM's reader, which holds alongside the read node, fires the child watch as
	 * a writer, which waits behind it, does: the mark is raised, and the read node listed
	 * again to tell them apart.
	 */
	@Override
	public void childrenChanged() {
		noteRemoteWaiter();
		settle();
	}

	/**
	 * The mark is raised, and the read node listed again with the watch.
	 */
	@Override
	public void childWatchRemoved() {
		noteRemoteWaiter();
		settle();
	}

	@Override
	public void connectionDown() {
		noteRemoteWaiter();
	}

	@Override
	public void noteRemoteWaiter() {
		this.mark.raise();
	}

	@Override
	public void noRemoteWaiter() {
		this.settler.clear(null);
	}

	/**
	 * List the read node again with the watch if the mark needs it: see
	 * {@link ReadNodeSettler}.
	 */
	void settle() {
		this.settler.settle();
	}

	/**
	 * Take the local side of a lock, waiting in the local lock's fair order until the
	 * deadline: see {@link LocalAdmission}.
	 * @return whether it was taken
	 * @throws AcquireFailure if the registry closed while we waited
	 */
	boolean lockLocally(Lock lock, Deadline deadline, boolean wait, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		return this.admission.admit(lock, deadline, wait, interrupts);
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
					boolean covered = this.nodes.isCovered();
					if (covered && (reentrant || this.nodes.isJoinable(maxJoins, currentSession))) {
						this.nodes.join(reentrant);
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

	/**
	 * The read acquirer got the read node: every waiting reader joins it.
	 */
	void readAcquired(HeldNode node) {
		this.state.lock();
		try {
			// In the order of before the split: the acquirer's seat is free before the
			// read holds count
			this.acquirer = null;
			this.nodes.readAcquired(node);
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
	EntryNodes.Release leaveRead(Engine engine) {
		this.state.lock();
		try {
			EntryNodes.Release release = this.nodes.leaveRead(engine);
			if (this.nodes.readHolds() == 0) {
				this.changed.signalAll();
			}
			return release;
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
			this.nodes.writeAcquired(thread, node);
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
	EntryNodes.Release leaveWrite(Engine engine) {
		this.state.lock();
		try {
			EntryNodes.Release release = this.nodes.leaveWrite(engine);
			this.changed.signalAll();
			return release;
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
		return this.nodes.heldNodeOf(write);
	}

	/**
	 * The thread holding the write side, if any.
	 */
	@Nullable Thread writer() {
		return this.nodes.writer();
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
		this.admission.interruptBlocked();
		Thread thread = this.acquirer;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	@Override
	public boolean isIdle() {
		this.state.lock();
		try {
			return this.nodes.isEmpty() && this.acquirer == null && !this.local.isWriteLocked()
					&& this.local.getReadLockCount() == 0 && !this.local.hasQueuedThreads();
		}
		finally {
			this.state.unlock();
		}
	}

	@Override
	public boolean isHeld() {
		return this.nodes.heldSince() != null;
	}

	@Override
	public void forEachHeldNode(Consumer<HeldNode> action) {
		this.nodes.forEach(action);
	}

	@Override
	public LocalLockInfo info() {
		Thread owner = this.nodes.writer();
		int readers;
		this.state.lock();
		try {
			readers = this.nodes.readHolds();
		}
		finally {
			this.state.unlock();
		}
		return snapshot(isHeld(), (owner != null) ? owner.getName() : null, this.nodes.heldSince(),
				heldNodeOf(owner != null), LockKind.READ_WRITE, readers, 0, false);
	}

}
