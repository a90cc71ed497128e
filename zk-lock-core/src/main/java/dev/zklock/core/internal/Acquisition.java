package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * One attempt of this JVM to become the holder of a key in ZooKeeper, made by the thread
 * at the head of the key's local queue, so that a lock path holds one node per JVM
 * however many threads wait.
 *
 * <p>
 * The recipe is Curator's {@code LockInternals}, node for node, so each recipe excludes
 * its Curator counterpart: a protected {@code EPHEMERAL_SEQUENTIAL} child
 * {@code _c_<uuid>-<lock name><seq>} under a container parent; the {@link LockDriver}
 * names the node and says, from the queue in sequence order, whether it holds or which
 * node it waits behind; only that node is watched. What differs from Curator is that
 * every wait is held to the caller's deadline, including waits for a lost connection, and
 * that a node the attempt gives up on is always deleted.
 *
 * <p>
 * The attempt is a small state machine over what it knows of its own node ({@link Node}),
 * each state carrying what it knows: the create in flight, or the node's path and stat. A
 * create is {@link MaybeCreated} from the moment it is sent until a reply proves it
 * either way, and only a proof moves it on: a reply with the node, a definite refusal, or
 * a search (after a sync) that finds the node by its protection id and reads it. So every
 * way out of the attempt (success, timeout, interrupt, failure, close) knows whether it
 * may own a node, and {@link #abandon()} hands whatever it may own to the
 * {@link NodeReaper}.
 */
public final class Acquisition {

	/**
	 * What the attempt knows about its own node.
	 */
	private sealed interface Node permits NoNode, MaybeCreated, Owned {

	}

	/** It has none: nothing was created, or what was is proven gone. */
	private record NoNode() implements Node {
	}

	/** A create was sent and no reply has said whether it was applied. */
	private record MaybeCreated(CompletableFuture<ZkOps.Created> create) implements Node {
	}

	/** It has one, at {@code path}, as of {@code stat}. */
	private record Owned(String path, Stat stat) implements Node {
	}

	private static final Node NONE = new NoNode();

	private final ZkOps ops;

	private final NodeReaper reaper;

	private final LockWatches watches;

	private final TableEntry entry;

	/** Where the node is made: the entry's path, or a semaphore's node path under it. */
	private final String lockPath;

	private final LockDriver driver;

	private final boolean waitForHolder;

	/** Every wait of the attempt, to the caller's deadline. */
	private final AttemptWaits waits;

	/** How our node waits when it does not hold. */
	private final PredecessorWait predecessor;

	/** Names this attempt's nodes; renewed with the session, whose nodes die with it. */
	private String protectionId = UUID.randomUUID().toString();

	private Node node = NONE;

	/** The containers of the lock path the next create makes before our node. */
	private final ContainerPath containers;

	Acquisition(ZkOps ops, NodeReaper reaper, LockWatches watches, SessionTracker sessions, TableEntry entry,
			String lockPath, LockDriver driver, Deadline deadline, boolean waitForHolder, Interrupts interrupts) {
		this.ops = ops;
		this.reaper = reaper;
		this.watches = watches;
		this.entry = entry;
		this.lockPath = lockPath;
		this.driver = driver;
		this.waitForHolder = waitForHolder;
		this.waits = new AttemptWaits(ops, sessions, entry, deadline, interrupts);
		this.containers = new ContainerPath(ops);
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
				abandon();
			}
		}
	}

	private HeldNode loop() throws AcquireFailure, InterruptedException {
		String lockPath = this.lockPath;
		while (true) {
			this.waits.checkOpen();
			this.waits.checkInterrupt();
			try {
				if (this.node instanceof Owned owned && !ownedBySession(owned.stat())) {
					// The client moved to a new session while we waited: our node belongs
					// to the old one, which is dead or dying, and can never be held
					// through this client
					abandonAndRenew();
				}
				List<String> children;
				if (this.node instanceof Owned) {
					children = this.waits.awaitReply(listChildren(lockPath), "the child list");
				}
				else if (this.node instanceof MaybeCreated) {
					children = recover(lockPath);
				}
				else {
					// Nothing sent where the entry may not have a node (a semaphore's
					// node off its guard's session)
					this.entry.checkSession(this.ops.sessionId());
					children = create(lockPath);
				}
				if (!(this.node instanceof Owned owned)) {
					continue;
				}
				// Nor held: a create sent as the client moved to a new session lands on
				// it
				this.entry.checkSession(owned.stat().getEphemeralOwner());
				this.waits.replied();
				HeldNode node = holdOrWait(lockPath, children, owned);
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
				forgetNode();
				this.containers.missing();
			}
			catch (KeeperException.SessionExpiredException ex) {
				// The old session's nodes go with it on the server; if the expiry was
				// declared by the client, the server may still have them for a while, so
				// the reaper deletes them
				abandonAndRenew();
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
	 * Create our node and, in the same breath, ask for the children: one session's
	 * requests are applied in order, so the list already holds our node, and the
	 * acquisition costs one round trip instead of two. Missing containers of the lock
	 * path are created in the same flight, ahead of the node, so that a key whose path
	 * was reaped costs one round trip more, not one per missing level.
	 */
	private List<String> create(String lockPath) throws Exception {
		List<CompletableFuture<Void>> containers = this.containers.send(this.ops.serverPath(lockPath));
		String prefix = lockPath + "/" + NodeNames.PROTECTED_PREFIX + this.protectionId + "-" + this.driver.lockName();
		CompletableFuture<ZkOps.Created> sent = this.ops.create(prefix, CreateMode.EPHEMERAL_SEQUENTIAL);
		this.node = new MaybeCreated(sent);
		CompletableFuture<List<String>> children = listChildren(lockPath);
		ZkOps.Created created;
		try {
			created = this.waits.awaitReply(sent, "the create of our node");
		}
		catch (KeeperException ex) {
			if (!NodeReaper.isUncertain(ex)) {
				// A definite answer: nothing was created
				forgetNode();
			}
			if (ex instanceof KeeperException.NoNodeException) {
				// Replied to before the create
				this.containers.checkNoParent(containers, lockPath, ex, this.waits);
			}
			throw ex;
		}
		this.containers.found();
		own(created.path(), created.stat());
		return this.waits.awaitReply(children, "the child list");
	}

	/**
	 * List the children, with the child watch if the entry needs it now, and tell the
	 * entry, in order with the watch's events, whether the list shows a participant that
	 * waits behind this one's node, and whether the list armed the watch.
	 */
	private CompletableFuture<List<String>> listChildren(String lockPath) {
		// The id this list is sent with: the reply is read on another thread
		String id = this.protectionId;
		boolean watched = this.entry.needsChildWatch();
		return this.ops.getChildren(lockPath, watched ? this.watches : null,
				(children) -> this.entry.childListRead(othersWaitBehind(children, id), watched));
	}

	/**
	 * Whether a participant waits behind ours in a child list, as the driver tells of the
	 * first node carrying our protection id (all of this participant's nodes carry it):
	 * another JVM's reader beside our read node waits for nothing. A node of ours that
	 * does not hold in the list, or none at all, counts any other node, to be safe: it
	 * holds only after a later change, which the watch or a later list tells of.
	 */
	private boolean othersWaitBehind(List<String> children, String id) {
		List<String> queue = NodeNames.inQueueOrder(children);
		for (int i = 0; i < queue.size(); i++) {
			if (NodeNames.hasProtectionId(queue.get(i), id)) {
				return (this.driver.blockerIndex(queue, i) == LockDriver.HOLDS) ? this.driver.othersWaitBehind(queue, i)
						: queue.size() > 1;
			}
		}
		return !queue.isEmpty();
	}

	/**
	 * Find out whether a create whose reply was lost was applied: sync the server this
	 * connection landed on with the leader, list the children, look for our protection id
	 * and read the node found. Only a complete answer changes what we know.
	 */
	private List<String> recover(String lockPath) throws Exception {
		CompletableFuture<Void> synced = this.ops.sync(lockPath);
		CompletableFuture<List<String>> listed = listChildren(lockPath);
		this.waits.awaitReply(synced, "a sync after a lost reply");
		List<String> children;
		try {
			children = this.waits.awaitReply(listed, "the child list after a lost reply");
		}
		catch (KeeperException.NoNodeException ex) {
			// No lock path, so no node of ours under it
			forgetNode();
			this.containers.missing();
			return List.of();
		}
		// Listed: the lock path is there, and the next create needs no container
		this.containers.found();
		String ours = null;
		for (String child : NodeNames.inQueueOrder(children)) {
			if (NodeNames.hasProtectionId(child, this.protectionId)) {
				ours = child;
				break;
			}
		}
		if (ours == null) {
			forgetNode();
			return List.of();
		}
		ZkOps.NodeData read = this.waits.awaitReply(this.ops.getData(lockPath + "/" + ours, null),
				"the read of our node");
		if (read == null) {
			// Found, then gone before the read: it is not ours to hold any more
			forgetNode();
			return List.of();
		}
		own(lockPath + "/" + ours, read.stat());
		if (!ownedBySession(read.stat())) {
			// Created by a session the client has since left: not ours to hold
			abandonAndRenew();
			return List.of();
		}
		return children;
	}

	/**
	 * Hold the lock if the driver says our node holds; otherwise wait behind the node it
	 * names. Nodes carrying our protection id other than our own are leftovers of creates
	 * whose replies were lost: they are deleted and do not count.
	 * @param owned our node
	 * @return the node if we hold the lock, {@code null} to look again
	 */
	private @Nullable HeldNode holdOrWait(String lockPath, List<String> children, Owned owned) throws Exception {
		String ourName = ZKPaths.getNodeFromPath(owned.path());
		List<String> queue = new ArrayList<>(children.size());
		for (String child : children) {
			if (!child.equals(ourName) && NodeNames.hasProtectionId(child, this.protectionId)) {
				this.reaper.delete(lockPath + "/" + child);
			}
			else {
				queue.add(child);
			}
		}
		NodeNames.sortInQueueOrder(queue);
		int index = queue.indexOf(ourName);
		if (index < 0) {
			// Our node is gone: deleted by hand, or with a session that expired under us
			forgetNode();
			return null;
		}
		int blocker = this.driver.blockerIndex(queue, index);
		if (blocker == LockDriver.HOLDS) {
			if (this.driver.othersWaitBehind(queue, index)) {
				// Only ever raise it here: the child watch may already have raised it for
				// a participant that joined after this (older) child list was read
				this.entry.noteRemoteWaiter();
			}
			return new HeldNode(owned.path(), owned.stat().getCzxid(), owned.stat().getEphemeralOwner());
		}
		String waitingFor = this.predecessor.behind(queue, blocker);
		if (!this.waitForHolder) {
			throw new AcquireFailure(Reason.HELD_REMOTELY, waitingFor, null);
		}
		this.waits.queuedBehind(waitingFor);
		if (blocker == LockDriver.WATCH_CHILDREN) {
			this.predecessor.awaitChildren(lockPath, children);
		}
		else {
			// Every node ahead of ours was in the list (a lower sequence is an earlier
			// create, which this list, read after ours, shows), and nodes only ever leave
			// it: if ours would hold without the one we wait behind, its delete makes
			// ours hold, while ours is still there, and reading the list again would only
			// say so, one round trip later
			boolean holdsOnDelete = holdsWithout(queue, blocker, ourName);
			if (this.predecessor.awaitPredecessor(lockPath + "/" + queue.get(blocker), blocker == 0,
					holdsOnDelete ? owned.path() : null) && ownedBySession(owned.stat())) {
				if (this.entry.needsChildWatch()) {
					// Not awaited: arms the child watch, tells the entry who queues
					// behind
					listChildren(lockPath);
				}
				else {
					// Who queues behind is not known, as after a list without the watch
					this.entry.noteUnwatched();
				}
				return new HeldNode(owned.path(), owned.stat().getCzxid(), owned.stat().getEphemeralOwner());
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

	private void own(String path, Stat stat) {
		this.node = new Owned(path, stat);
	}

	/**
	 * Whether a node of ours belongs to the session the client has now: only such a node
	 * can be held through it.
	 */
	private boolean ownedBySession(@Nullable Stat stat) {
		return stat != null && stat.getEphemeralOwner() == this.ops.sessionId();
	}

	/**
	 * Give whatever node we may own to the reaper and start over under a new protection
	 * id, as after the loss of the session that owned it.
	 */
	private void abandonAndRenew() {
		abandon();
		forgetNode();
		this.protectionId = UUID.randomUUID().toString();
	}

	private void forgetNode() {
		this.node = NONE;
	}

	/**
	 * Hand whatever node this attempt may own to the reaper.
	 */
	private void abandon() {
		if (this.node instanceof Owned owned) {
			this.reaper.delete(owned.path());
		}
		else if (this.node instanceof MaybeCreated maybeCreated) {
			this.reaper.deleteIfCreated(maybeCreated.create(), this.lockPath, this.protectionId);
		}
	}

}
