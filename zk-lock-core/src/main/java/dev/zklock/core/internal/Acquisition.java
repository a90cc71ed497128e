package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * One attempt of this JVM to become the holder of a key in ZooKeeper, made by the thread
 * at the head of the key's local queue, so that a lock path holds one node per JVM
 * however many threads wait.
 *
 * <p>
 * The recipe is Curator's {@code LockInternals}, node for node, so each recipe excludes
 * its Curator counterpart, and goes one way as Curator's {@code attemptLock} does: its
 * node is made and the queue listed ({@link QueuedNode}); the {@link LockDriver} says,
 * from the queue in sequence order, whether the node holds or which node it waits behind;
 * only that node is watched ({@link PredecessorWait}); then the node is held, or looked
 * at again. What differs from Curator is that every wait is held to the caller's deadline
 * ({@link AttemptWaits}), including waits for a lost connection, and that a node the
 * attempt gives up on is always deleted: every way out of the attempt but success
 * abandons whatever node it may own.
 */
public final class Acquisition {

	private final TableEntry entry;

	/** Where the node is made: the entry's path, or a semaphore's node path under it. */
	private final String lockPath;

	private final LockDriver driver;

	private final boolean waitForHolder;

	/** Every wait of the attempt, to the caller's deadline. */
	private final AttemptWaits waits;

	/** Our node: made, found again, held or abandoned. */
	private final QueuedNode node;

	/** How our node waits when it does not hold. */
	private final PredecessorWait predecessor;

	Acquisition(ZkOps ops, NodeReaper reaper, LockWatches watches, SessionTracker sessions, TableEntry entry,
			String lockPath, LockDriver driver, Deadline deadline, boolean waitForHolder, Interrupts interrupts) {
		this.entry = entry;
		this.lockPath = lockPath;
		this.driver = driver;
		this.waitForHolder = waitForHolder;
		this.waits = new AttemptWaits(ops, sessions, entry, deadline, interrupts);
		this.node = new QueuedNode(ops, reaper, watches, entry, lockPath, driver, this.waits);
		this.predecessor = new PredecessorWait(ops, watches, this.waits);
	}

	/**
	 * Acquire the key's lock in ZooKeeper.
	 * @return the node, held
	 * @throws AcquireFailure if the deadline passed, ZooKeeper refused, the registry
	 * closed, or (without waiting) the lock is held by another participant
	 * @throws InterruptedException if interrupted and interruptible
	 */
	HeldNode acquire() throws AcquireFailure, InterruptedException {
		boolean acquired = false;
		try {
			HeldNode node = loop();
			acquired = true;
			return node;
		}
		finally {
			if (!acquired) {
				this.node.abandon();
			}
		}
	}

	private HeldNode loop() throws AcquireFailure, InterruptedException {
		while (true) {
			this.waits.checkOpen();
			this.waits.checkInterrupt();
			try {
				List<String> children = this.node.enqueue();
				if (children == null) {
					continue;
				}
				this.waits.replied();
				HeldNode node = holdOrWait(children);
				if (node != null) {
					return node;
				}
			}
			catch (TimeoutException ex) {
				throw this.waits.ranOut(null);
			}
			catch (KeeperException.NoNodeException ex) {
				// The lock path is gone (never made, or reaped once empty), and our node
				// with it
				this.node.lockPathMissing();
			}
			catch (KeeperException.SessionExpiredException ex) {
				// The old session's nodes go with it on the server; if the expiry was
				// declared by the client, the server may still have them for a while, so
				// the reaper deletes them
				this.node.abandonAndRenew();
				this.waits.awaitConnected(ex);
			}
			catch (KeeperException.ThrottledOpException ex) {
				// The server shed load and applied nothing: try again a little later
				this.waits.connectionLost();
				this.waits.backOff();
			}
			catch (KeeperException ex) {
				if (!NodeReaper.isUncertain(ex)) {
					String message = ex.getMessage();
					throw new AcquireFailure(Reason.ERROR, (message != null) ? message : ex.code().toString(), ex);
				}
				this.waits.connectionLost();
				this.waits.backOff();
				this.waits.awaitConnected(ex);
			}
			catch (AcquireFailure | InterruptedException ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new AcquireFailure(Reason.ERROR, ex.toString(), ex);
			}
		}
	}

	/**
	 * Hold the lock if the driver says our node holds; otherwise wait behind the node it
	 * names.
	 * @param children the children, read after our node was made
	 * @return the node if we hold the lock, {@code null} to look again
	 */
	private @Nullable HeldNode holdOrWait(List<String> children) throws Exception {
		String ourName = this.node.name();
		List<String> queue = this.node.queue(children);
		int index = queue.indexOf(ourName);
		if (index < 0) {
			// Our node is gone: deleted by hand, or with a session that expired under us
			this.node.forget();
			return null;
		}
		int blocker = this.driver.blockerIndex(queue, index);
		if (blocker == LockDriver.HOLDS) {
			if (this.driver.othersWaitBehind(queue, index)) {
				// Only ever raise it here: the child watch may already have raised it for
				// a participant that joined after this (older) child list was read
				this.entry.noteRemoteWaiter();
			}
			return this.node.held();
		}
		String waitingFor = this.predecessor.behind(queue, blocker);
		if (!this.waitForHolder) {
			throw new AcquireFailure(Reason.HELD_REMOTELY, waitingFor, null);
		}
		this.waits.queuedBehind(waitingFor);
		if (blocker == LockDriver.WATCH_CHILDREN) {
			this.predecessor.awaitChildren(this.lockPath, children);
		}
		else {
			// Every node ahead of ours was in the list (a lower sequence is an earlier
			// create, which this list, read after ours, shows), and nodes only ever leave
			// it: if ours would hold without the one we wait behind, its delete makes
			// ours hold, while ours is still there, and reading the list again would only
			// say so, one round trip later
			boolean holdsOnDelete = holdsWithout(queue, blocker, ourName);
			if (this.predecessor.awaitPredecessor(this.lockPath + "/" + queue.get(blocker), blocker == 0,
					holdsOnDelete ? this.node.path() : null) && this.node.ownedBySession()) {
				if (this.entry.needsChildWatch()) {
					// Not awaited: arms the child watch, tells the entry who queues
					// behind
					this.node.listInBackground();
				}
				else {
					// Who queues behind is not known, as after a list without the watch
					this.entry.noteUnwatched();
				}
				return this.node.held();
			}
		}
		return null;
	}

	/**
	 * Whether our node would hold in {@code queue} without the node at {@code blocker}.
	 */
	private boolean holdsWithout(List<String> queue, int blocker, String ourName) {
		List<String> rest = new ArrayList<>(queue);
		rest.remove(blocker);
		return this.driver.blockerIndex(rest, rest.indexOf(ourName)) == LockDriver.HOLDS;
	}

}
