package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The node of one {@link Acquisition} in the lock path's queue, as far as the attempt
 * knows it: created as Curator's protected create makes it, a protected
 * {@code EPHEMERAL_SEQUENTIAL} child {@code _c_<protection id>-<lock name><seq>} under a
 * container parent, whose name the {@link LockDriver} gives, found again when the
 * create's reply was lost, and handed to the {@link NodeReaper} whenever the attempt
 * gives it up.
 *
 * <p>
 * A small state machine over what the attempt knows of its node ({@link State}), each
 * state carrying what it knows: the create in flight, or the node's path and stat. A
 * create is {@link MaybeCreated} from the moment it is sent until a reply proves it
 * either way, and only a proof moves it on: a reply with the node, a definite refusal, or
 * a search (after a sync) that finds the node by its protection id and reads it. So every
 * way out of the attempt (success, timeout, interrupt, failure, close) knows whether it
 * may own a node, and {@link #abandon()} hands whatever it may own to the reaper.
 */
final class QueuedNode {

	/**
	 * What the attempt knows about its node.
	 */
	private sealed interface State permits NoNode, MaybeCreated, Owned {

	}

	/** It has none: nothing was created, or what was is proven gone. */
	private record NoNode() implements State {
	}

	/** A create was sent and no reply has said whether it was applied. */
	private record MaybeCreated(CompletableFuture<ZkOps.Created> create) implements State {
	}

	/** It has one, at {@code path}, as of {@code stat}. */
	private record Owned(String path, Stat stat) implements State {
	}

	private static final State NONE = new NoNode();

	private final ZkOps ops;

	private final NodeReaper reaper;

	private final LockWatches watches;

	private final TableEntry entry;

	/** Where the node is made: the entry's path, or a semaphore's node path under it. */
	private final String lockPath;

	private final LockDriver driver;

	/** The attempt's waits, to its deadline. */
	private final AttemptWaits waits;

	/** The containers of the lock path the next create makes before our node. */
	private final ContainerPath containers;

	/** Names this attempt's nodes; renewed with the session, whose nodes die with it. */
	private String protectionId = UUID.randomUUID().toString();

	private State state = NONE;

	QueuedNode(ZkOps ops, NodeReaper reaper, LockWatches watches, TableEntry entry, String lockPath, LockDriver driver,
			AttemptWaits waits) {
		this.ops = ops;
		this.reaper = reaper;
		this.watches = watches;
		this.entry = entry;
		this.lockPath = lockPath;
		this.driver = driver;
		this.waits = waits;
		this.containers = new ContainerPath(ops);
	}

	/**
	 * Make sure our node is in the queue, and read the queue: list the children if we own
	 * a node; find out whether a create whose reply was lost was applied; else create
	 * one. A node owned by a session the client has left is abandoned first.
	 * @return the children, read after our node was made, or {@code null} if we own no
	 * node yet: look again
	 */
	@Nullable List<String> enqueue() throws Exception {
		if (this.state instanceof Owned owned && !ownedBySession(owned.stat())) {
			// The client moved to a new session while we waited: our node belongs to the
			// old one, which is dead or dying, and can never be held through this client
			abandonAndRenew();
		}
		List<String> children;
		if (this.state instanceof Owned) {
			children = this.waits.awaitReply(listChildren(), "the child list");
		}
		else if (this.state instanceof MaybeCreated) {
			children = recover();
		}
		else {
			// Nothing sent where the entry may not have a node (a semaphore's node off
			// its guard's session)
			this.entry.checkSession(this.ops.sessionId());
			children = create();
		}
		if (!(this.state instanceof Owned owned)) {
			return null;
		}
		// Nor held: a create sent as the client moved to a new session lands on it
		this.entry.checkSession(owned.stat().getEphemeralOwner());
		return children;
	}

	/**
	 * Create our node and, in the same breath, ask for the children: one session's
	 * requests are applied in order, so the list already holds our node, and the
	 * acquisition costs one round trip instead of two. Missing containers of the lock
	 * path are created in the same flight, ahead of the node, so that a key whose path
	 * was reaped costs one round trip more, not one per missing level.
	 */
	private List<String> create() throws Exception {
		List<CompletableFuture<Void>> containers = this.containers.send(this.ops.serverPath(this.lockPath));
		String prefix = this.lockPath + "/" + NodeNames.PROTECTED_PREFIX + this.protectionId + "-"
				+ this.driver.lockName();
		CompletableFuture<ZkOps.Created> sent = this.ops.create(prefix, CreateMode.EPHEMERAL_SEQUENTIAL);
		this.state = new MaybeCreated(sent);
		CompletableFuture<List<String>> children = listChildren();
		ZkOps.Created created;
		try {
			created = this.waits.awaitReply(sent, "the create of our node");
		}
		catch (KeeperException ex) {
			if (!NodeReaper.isUncertain(ex)) {
				// A definite answer: nothing was created
				forget();
			}
			if (ex instanceof KeeperException.NoNodeException) {
				// Replied to before the create
				this.containers.checkNoParent(containers, this.lockPath, ex, this.waits);
			}
			throw ex;
		}
		this.containers.found();
		own(created.path(), created.stat());
		return this.waits.awaitReply(children, "the child list");
	}

	/**
	 * Find out whether a create whose reply was lost was applied: sync the server this
	 * connection landed on with the leader, list the children, look for our protection id
	 * and read the node found. Only a complete answer changes what we know.
	 */
	private List<String> recover() throws Exception {
		CompletableFuture<Void> synced = this.ops.sync(this.lockPath);
		CompletableFuture<List<String>> listed = listChildren();
		this.waits.awaitReply(synced, "a sync after a lost reply");
		List<String> children;
		try {
			children = this.waits.awaitReply(listed, "the child list after a lost reply");
		}
		catch (KeeperException.NoNodeException ex) {
			// No lock path, so no node of ours under it
			lockPathMissing();
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
			forget();
			return List.of();
		}
		ZkOps.NodeData read = this.waits.awaitReply(this.ops.getData(this.lockPath + "/" + ours, null),
				"the read of our node");
		if (read == null) {
			// Found, then gone before the read: it is not ours to hold any more
			forget();
			return List.of();
		}
		own(this.lockPath + "/" + ours, read.stat());
		if (!ownedBySession(read.stat())) {
			// Created by a session the client has since left: not ours to hold
			abandonAndRenew();
			return List.of();
		}
		return children;
	}

	/**
	 * List the children again without waiting for the reply: it arms the child watch, if
	 * the entry needs it, and tells the entry who queues behind our node.
	 */
	void listInBackground() {
		listChildren();
	}

	/**
	 * List the children, with the child watch if the entry needs it now, and tell the
	 * entry, in order with the watch's events, whether the list shows a participant that
	 * waits behind this one's node, and whether the list armed the watch.
	 */
	private CompletableFuture<List<String>> listChildren() {
		// The id this list is sent with: the reply is read on another thread
		String id = this.protectionId;
		boolean watched = this.entry.needsChildWatch();
		return this.ops.getChildren(this.lockPath, watched ? this.watches : null,
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
	 * The queue a child list shows, in sequence order. Nodes carrying our protection id
	 * other than our own are leftovers of creates whose replies were lost: they are
	 * deleted and left out.
	 */
	List<String> queue(List<String> children) {
		String ourName = name();
		List<String> queue = new ArrayList<>(children.size());
		for (String child : children) {
			if (!child.equals(ourName) && NodeNames.hasProtectionId(child, this.protectionId)) {
				this.reaper.delete(this.lockPath + "/" + child);
			}
			else {
				queue.add(child);
			}
		}
		NodeNames.sortInQueueOrder(queue);
		return queue;
	}

	/** The name of our node, which we own. */
	String name() {
		return ZKPaths.getNodeFromPath(owned().path());
	}

	/** The path of our node, which we own. */
	String path() {
		return owned().path();
	}

	/**
	 * Whether our node, which we own, belongs to the session the client has now: only
	 * such a node can be held through it.
	 */
	boolean ownedBySession() {
		return ownedBySession(owned().stat());
	}

	/** Our node, which we own, held. */
	HeldNode held() {
		Owned owned = owned();
		return new HeldNode(owned.path(), owned.stat().getCzxid(), owned.stat().getEphemeralOwner());
	}

	private Owned owned() {
		// Asked only once enqueue() returned a node, by the attempt's own thread, the
		// only one that changes the state: a failure here is a bug of the attempt
		if (!(this.state instanceof Owned owned)) {
			throw new IllegalStateException("The attempt owns no node");
		}
		return owned;
	}

	private void own(String path, Stat stat) {
		this.state = new Owned(path, stat);
	}

	private boolean ownedBySession(@Nullable Stat stat) {
		return stat != null && stat.getEphemeralOwner() == this.ops.sessionId();
	}

	/**
	 * The lock path is gone (never made, or reaped once empty), and our node with it: the
	 * next create makes one more level of it.
	 */
	void lockPathMissing() {
		forget();
		this.containers.missing();
	}

	/**
	 * Give whatever node we may own to the reaper and start over under a new protection
	 * id, as after the loss of the session that owned it.
	 */
	void abandonAndRenew() {
		abandon();
		forget();
		this.protectionId = UUID.randomUUID().toString();
	}

	/** Our node is proven gone, or was never made. */
	void forget() {
		this.state = NONE;
	}

	/**
	 * Hand whatever node this attempt may own to the reaper.
	 */
	void abandon() {
		if (this.state instanceof Owned owned) {
			this.reaper.delete(owned.path());
		}
		else if (this.state instanceof MaybeCreated maybeCreated) {
			this.reaper.deleteIfCreated(maybeCreated.create(), this.lockPath, this.protectionId);
		}
	}

}
