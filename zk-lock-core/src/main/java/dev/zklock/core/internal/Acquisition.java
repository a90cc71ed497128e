package dev.zklock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

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

	/** Why a semaphore's lease waits: no single holder to name. */
	private static final String ALL_TAKEN = "every permit is taken";

	/** The longest pause between attempts that keep losing the connection at once. */
	private static final long MAX_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	/** How often a wait for the connection looks again. */
	private static final long CONNECTION_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

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

	/**
	 * How much of the lock path a create makes first. Usually all of it exists, and a
	 * container more would cost a write; a key reaped once idle lacks only its own level;
	 * a registry's first use may lack every level.
	 */
	private enum PathToMake {

		NONE, LOCK_PATH, EVERY_LEVEL;

		/** What to make after a create that made this found no parent. */
		PathToMake next() {
			return (this == NONE) ? LOCK_PATH : EVERY_LEVEL;
		}

	}

	private static final Node NONE = new NoNode();

	private final ZkOps ops;

	private final NodeReaper reaper;

	private final LockWatches watches;

	private final TableEntry entry;

	/** Where the node is made: the entry's path, or a semaphore's lease path under it. */
	private final String lockPath;

	private final LockDriver driver;

	private final Deadline deadline;

	private final boolean waitForHolder;

	/** Names the connection state when the wait fails for want of a connection. */
	private final SessionTracker sessions;

	private final Interrupts interrupts;

	/** Names this attempt's nodes; renewed with the session, whose nodes die with it. */
	private String protectionId = UUID.randomUUID().toString();

	private Node node = NONE;

	/** How much of the lock path the next create makes before our node. */
	private PathToMake pathToMake = PathToMake.NONE;

	private @Nullable String lastHolder;

	/**
	 * The data of {@link #lastHolder}'s node, {@code pid@host} for this engine, if read.
	 */
	private @Nullable String lastHolderOwner;

	/** What the attempt waits for now: the reason given if the deadline passes. */
	private String awaiting = "";

	/**
	 * Since when, in {@link System#nanoTime()}, the attempt has waited on ZooKeeper alone
	 * (replies, the connection) rather than behind another holder: since it began, which
	 * is when the local queue let it go, or since it last learned it is queued behind
	 * another participant. What the deadline weighs when it passes here
	 * ({@link Deadline#ranOut}).
	 */
	private long zooKeeperSince = System.nanoTime();

	private int connectionLosses;

	Acquisition(ZkOps ops, NodeReaper reaper, LockWatches watches, SessionTracker sessions, TableEntry entry,
			String lockPath, LockDriver driver, Deadline deadline, boolean waitForHolder, Interrupts interrupts) {
		this.ops = ops;
		this.sessions = sessions;
		this.reaper = reaper;
		this.watches = watches;
		this.entry = entry;
		this.lockPath = lockPath;
		this.driver = driver;
		this.deadline = deadline;
		this.waitForHolder = waitForHolder;
		this.interrupts = interrupts;
	}

	/**
	 * Acquire the key's lock in ZooKeeper.
	 * @return the lease, held
	 * @throws AcquireFailure if the deadline passed, ZooKeeper refused, the registry
	 * closed, or (without waiting) the lock is held by another participant
	 * @throws InterruptedException if interrupted and interruptible
	 */
	Lease acquire() throws AcquireFailure, InterruptedException {
		boolean acquired = false;
		try {
			Lease lease = loop();
			acquired = true;
			return lease;
		}
		finally {
			if (!acquired) {
				abandon();
			}
		}
	}

	private Lease loop() throws AcquireFailure, InterruptedException {
		String lockPath = this.lockPath;
		while (true) {
			checkOpen();
			checkInterrupt();
			try {
				if (this.node instanceof Owned owned && !ownedBySession(owned.stat())) {
					// The client moved to a new session while we waited: our node belongs
					// to the old one, which is dead or dying, and can never be held
					// through this client
					abandonAndRenew();
				}
				List<String> children;
				if (this.node instanceof Owned) {
					children = awaitReply(listChildren(lockPath), "the child list");
				}
				else if (this.node instanceof MaybeCreated) {
					children = recover(lockPath);
				}
				else {
					// Nothing sent where the entry may not have a node (a semaphore's
					// lease off its guard's session)
					this.entry.checkSession(this.ops.sessionId());
					children = create(lockPath);
				}
				if (!(this.node instanceof Owned owned)) {
					continue;
				}
				// Nor held: a create sent as the client moved to a new session lands on
				// it
				this.entry.checkSession(owned.stat().getEphemeralOwner());
				this.connectionLosses = 0;
				Lease lease = holdOrWait(lockPath, children, owned);
				if (lease != null) {
					return lease;
				}
			}
			catch (TimeoutException ex) {
				throw ranOut(null);
			}
			catch (KeeperException.NoNodeException ex) {
				// The lock path is gone (never made, or reaped once empty), and our node
				// with it
				forgetNode();
				this.pathToMake = this.pathToMake.next();
			}
			catch (KeeperException.SessionExpiredException ex) {
				// The old session's nodes go with it on the server; if the expiry was
				// declared by the client, the server may still have them for a while, so
				// the reaper deletes them
				abandonAndRenew();
				awaitConnected(ex);
			}
			catch (KeeperException.ThrottledOpException ex) {
				// The server shed load and applied nothing: try again a little later
				this.connectionLosses++;
				backOff();
			}
			catch (KeeperException ex) {
				if (!NodeReaper.isUncertain(ex)) {
					String message = ex.getMessage();
					throw new AcquireFailure(Reason.ERROR, (message != null) ? message : ex.code().toString(), ex);
				}
				this.connectionLosses++;
				backOff();
				awaitConnected(ex);
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
		List<CompletableFuture<Void>> containers = createContainers(this.ops.serverPath(lockPath));
		String prefix = lockPath + "/" + NodeNames.PROTECTED_PREFIX + this.protectionId + "-" + this.driver.lockName();
		CompletableFuture<ZkOps.Created> sent = this.ops.create(prefix, CreateMode.EPHEMERAL_SEQUENTIAL);
		this.node = new MaybeCreated(sent);
		CompletableFuture<List<String>> children = listChildren(lockPath);
		ZkOps.Created created;
		try {
			created = awaitReply(sent, "the create of our node");
		}
		catch (KeeperException ex) {
			if (!NodeReaper.isUncertain(ex)) {
				// A definite answer: nothing was created
				forgetNode();
			}
			if (ex instanceof KeeperException.NoNodeException) {
				// Replied to before the create: a container refused for a reason of its
				// own (an ACL, say) is the error to report, not the missing path it left
				boolean outermostWithoutParent = false;
				for (int i = 0; i < containers.size(); i++) {
					boolean withoutParent = awaitContainer(containers.get(i));
					outermostWithoutParent |= (i == 0) && withoutParent;
				}
				if (outermostWithoutParent && this.pathToMake == PathToMake.EVERY_LEVEL) {
					// Even the outermost level found no parent: the client's root is a
					// chroot of the connect string that does not exist, and no create of
					// ours can make it
					throw new AcquireFailure(Reason.ERROR,
							"ZooKeeper has no node above " + this.ops.serverPath(lockPath)
									+ ": the chroot of the connect string '" + this.ops.connectString()
									+ "' does not exist",
							ex);
				}
			}
			throw ex;
		}
		this.pathToMake = PathToMake.NONE;
		own(created.path(), created.stat());
		return awaitReply(children, "the child list");
	}

	/**
	 * Send the creates of the containers the next create needs, outermost first, without
	 * waiting: the server applies them in order, before our node. Works on server paths,
	 * so that a namespace's own node is made too, as Curator would on first use.
	 */
	private List<CompletableFuture<Void>> createContainers(String serverPath) {
		return switch (this.pathToMake) {
			case NONE -> List.of();
			case LOCK_PATH -> List.of(this.ops.createContainer(serverPath));
			case EVERY_LEVEL -> {
				List<CompletableFuture<Void>> sent = new ArrayList<>();
				for (int end = serverPath.indexOf('/', 1); end > 0; end = serverPath.indexOf('/', end + 1)) {
					sent.add(this.ops.createContainer(serverPath.substring(0, end)));
				}
				sent.add(this.ops.createContainer(serverPath));
				yield sent;
			}
		};
	}

	/**
	 * Wait for a container's create, which may find it made already.
	 * @return whether it found no parent
	 */
	private boolean awaitContainer(CompletableFuture<Void> container) throws Exception {
		try {
			awaitReply(container, "the create of the lock path");
			return false;
		}
		catch (KeeperException.NodeExistsException ex) {
			return false;
		}
		catch (KeeperException.NoNodeException ex) {
			// The next create makes more of the path, if there is more to make
			return true;
		}
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
		awaitReply(synced, "a sync after a lost reply");
		List<String> children;
		try {
			children = awaitReply(listed, "the child list after a lost reply");
		}
		catch (KeeperException.NoNodeException ex) {
			// No lock path, so no node of ours under it
			forgetNode();
			this.pathToMake = this.pathToMake.next();
			return List.of();
		}
		// Listed: the lock path is there, and the next create needs no container
		this.pathToMake = PathToMake.NONE;
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
		ZkOps.NodeData read = awaitReply(this.ops.getData(lockPath + "/" + ours, null), "the read of our node");
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
	 * @return the lease if we hold the lock, {@code null} to look again
	 */
	private @Nullable Lease holdOrWait(String lockPath, List<String> children, Owned owned) throws Exception {
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
			return new Lease(owned.path(), owned.stat().getCzxid(), owned.stat().getEphemeralOwner());
		}
		if (!queue.get(0).equals(this.lastHolder)) {
			this.lastHolder = queue.get(0);
			this.lastHolderOwner = null;
		}
		if (!this.waitForHolder) {
			throw new AcquireFailure(Reason.HELD_REMOTELY,
					(blocker == LockDriver.WATCH_CHILDREN) ? ALL_TAKEN : holderDetail(), null);
		}
		queuedBehind((blocker == LockDriver.WATCH_CHILDREN) ? ALL_TAKEN : holderDetail());
		if (blocker == LockDriver.WATCH_CHILDREN) {
			awaitChildren(lockPath, children);
		}
		else {
			// Every node ahead of ours was in the list (a lower sequence is an earlier
			// create, which this list, read after ours, shows), and nodes only ever leave
			// it: if ours would hold without the one we wait behind, its delete makes
			// ours hold, while ours is still there, and reading the list again would only
			// say so, one round trip later
			boolean holdsOnDelete = holdsWithout(queue, blocker, ourName);
			if (awaitPredecessor(lockPath + "/" + queue.get(blocker), blocker == 0, holdsOnDelete ? owned.path() : null)
					&& ownedBySession(owned.stat())) {
				if (this.entry.needsChildWatch()) {
					// Not awaited: arms the child watch, tells the entry who queues
					// behind
					listChildren(lockPath);
				}
				else {
					// Who queues behind is not known, as after a list without the watch
					this.entry.noteUnwatched();
				}
				return new Lease(owned.path(), owned.stat().getCzxid(), owned.stat().getEphemeralOwner());
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

	/**
	 * Wait until our predecessor changes (usually: is deleted), through the registry's
	 * one watcher. Given our node, it is watched too, so that its delete (by hand, say)
	 * is known before the predecessor's: ZooKeeper sends one session its events in the
	 * order of the changes.
	 * @param ours our node, if the predecessor's delete makes it hold, else {@code null}
	 * @return whether our node holds now: the predecessor is gone (deleted, or not found
	 * by the read that sets the watch) and our node, given, is untouched (any event on
	 * it, a revocation request say, consumes the watch that would tell its delete);
	 * {@code false} means look again
	 */
	private boolean awaitPredecessor(String predecessor, boolean predecessorHolds, @Nullable String ours)
			throws Exception {
		String serverPath = this.ops.serverPath(predecessor);
		String ourServerPath = (ours != null) ? this.ops.serverPath(ours) : null;
		CompletableFuture<Boolean> changed = this.watches.expect(serverPath);
		CompletableFuture<Boolean> oursChanged = null;
		try {
			if (ourServerPath != null) {
				oursChanged = this.watches.expect(ourServerPath);
			}
			long ourReadSent = System.nanoTime();
			// Sent first: its reply comes before the predecessor's
			CompletableFuture<ZkOps.@Nullable NodeData> ourRead = (ours != null) ? this.ops.getData(ours, this.watches)
					: null;
			ZkOps.NodeData read = awaitReply(this.ops.getData(predecessor, this.watches),
					"the read of our predecessor");
			boolean gone = true;
			if (read != null) {
				if (predecessorHolds) {
					// The read that sets the watch tells who holds: naming them costs no
					// round trip
					this.lastHolderOwner = owner(read.data());
				}
				try {
					gone = await(changed);
				}
				catch (TimeoutException ex) {
					throw new AcquireFailure(Reason.HELD_REMOTELY, holderDetail(), null);
				}
				// Queued until now; the holder's owner, if read, is named from now on
				queuedBehind(holderDetail());
			}
			return gone && ourRead != null && oursChanged != null && awaitReply(ourRead, "the read of our node") != null
					&& !oursChanged.isDone() && isRecent(ourReadSent);
		}
		finally {
			this.watches.forget(serverPath, changed);
			if (ourServerPath != null && oursChanged != null) {
				this.watches.forget(ourServerPath, oursChanged);
			}
		}
	}

	/**
	 * Whether a delete event that arrived now is proof that our node is still there. The
	 * server read our node after {@code sent}, so it cannot expire our session, delete
	 * our node with it and let the participant behind us in, sooner than a session
	 * timeout after that. An event handled much later (the client's event thread kept
	 * busy, the process stalled) may be older than our session; then the list is read, as
	 * after any other event. Half the timeout leaves room for the server's and our
	 * clocks' rates.
	 */
	private boolean isRecent(long sent) {
		long sessionTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(this.ops.negotiatedSessionTimeoutMs());
		return System.nanoTime() - sent < sessionTimeoutNanos / 2 && this.ops.isHandleConnected();
	}

	/**
	 * Wait until the child list differs from {@code seen}: registered first, then read
	 * again with the watch, so that no change between the two reads goes unseen.
	 */
	private void awaitChildren(String lockPath, List<String> seen) throws Exception {
		CompletableFuture<Void> changed = this.watches.expectChildren(this.ops.serverPath(lockPath));
		List<String> now = awaitReply(this.ops.getChildren(lockPath, this.watches), "the child list");
		if (now.size() != seen.size() || !now.containsAll(seen)) {
			return;
		}
		try {
			await(changed);
		}
		catch (TimeoutException ex) {
			throw new AcquireFailure(Reason.HELD_REMOTELY, ALL_TAKEN, null);
		}
		queuedBehind(ALL_TAKEN);
	}

	/**
	 * The holder, for the failure message: its node, and its owner when a read that was
	 * made anyway told it. A one-attempt acquisition does not read it: that would
	 * lengthen the wait.
	 */
	private String holderDetail() {
		return "holder " + this.lastHolder
				+ ((this.lastHolderOwner != null) ? ", owned by " + this.lastHolderOwner : "");
	}

	/**
	 * Note that our node is queued behind another participant's as of now: the stretch on
	 * ZooKeeper alone starts again.
	 */
	private void queuedBehind(String detail) {
		this.deadline.queuedBehind(Reason.HELD_REMOTELY, detail);
		this.zooKeeperSince = System.nanoTime();
	}

	/**
	 * A node's data as an owner: text of this engine ({@code pid@host}) or Curator (an
	 * address); anything else is not shown.
	 */
	private static @Nullable String owner(byte[] data) {
		if (data.length == 0 || data.length > 255) {
			return null;
		}
		String text = new String(data, StandardCharsets.UTF_8);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < 0x20 || c == 0x7f || c == '\uFFFD') {
				return null;
			}
		}
		return text;
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

	/**
	 * Pause a little before trying again when the connection keeps failing at once, so
	 * that a client that reports itself connected while every request fails cannot make
	 * us spin.
	 */
	private void backOff() throws AcquireFailure, InterruptedException {
		if (this.connectionLosses < 2) {
			return;
		}
		long pause = Math.min(MAX_BACK_OFF_NANOS,
				TimeUnit.MILLISECONDS.toNanos(5L << Math.min(this.connectionLosses, 8)));
		long until = System.nanoTime() + Math.min(pause, Math.max(0, this.deadline.remainingNanos()));
		long remaining;
		while ((remaining = until - System.nanoTime()) > 0) {
			checkOpen();
			LockSupport.parkNanos(this, remaining);
			checkInterrupt();
		}
	}

	private void awaitConnected(Exception cause) throws AcquireFailure, InterruptedException {
		while (!this.ops.isConnected()) {
			checkOpen();
			if (this.ops.isClientClosed()) {
				throw new AcquireFailure(Reason.ERROR, "the Curator client was closed", cause);
			}
			long remaining = this.deadline.remainingNanos();
			if (remaining <= 0) {
				throw ranOut(cause);
			}
			LockSupport.parkNanos(this, Math.min(remaining, CONNECTION_POLL_NANOS));
			checkInterrupt();
		}
	}

	/**
	 * Why the attempt failed when its deadline passed while it waited on ZooKeeper alone:
	 * for a reply, or for the connection. {@code NO_REPLY} only on a connected client
	 * (Curator's view and the handle's agree), {@code NOT_CONNECTED}, naming the
	 * connection's state, only on one that is not; and either only if the wait was not
	 * used mostly by the holders it was queued behind ({@link Deadline#ranOut}).
	 */
	private AcquireFailure ranOut(@Nullable Exception cause) {
		boolean connected = this.ops.isConnected() && this.ops.isHandleConnected();
		AcquireFailure zooKeeper = connected
				? new AcquireFailure(Reason.NO_REPLY, "no reply to " + this.awaiting, cause)
				: new AcquireFailure(Reason.NOT_CONNECTED, this.sessions.notConnected(), cause);
		return this.deadline.ranOut(zooKeeper, this.zooKeeperSince, connected ? this.awaiting : "a reconnect");
	}

	private <T extends @Nullable Object> T awaitReply(CompletableFuture<T> reply, String what) throws Exception {
		this.awaiting = what;
		return await(reply);
	}

	/**
	 * Wait for a future until the deadline, giving up at once if the registry closes, and
	 * treating interrupts as the caller asked.
	 */
	private <T extends @Nullable Object> T await(CompletableFuture<T> future) throws Exception {
		if (!future.isDone()) {
			Thread waiter = Thread.currentThread();
			future.whenComplete((result, ex) -> LockSupport.unpark(waiter));
			while (!future.isDone()) {
				checkOpen();
				long remaining = this.deadline.remainingNanos();
				if (remaining <= 0) {
					throw new TimeoutException();
				}
				if (this.deadline.isInfinite()) {
					LockSupport.park(this);
				}
				else {
					LockSupport.parkNanos(this, remaining);
				}
				checkInterrupt();
			}
		}
		// Done by now: no wait
		return Futures.await(future, 0);
	}

	private void checkOpen() throws AcquireFailure {
		if (this.entry.isClosed()) {
			throw new AcquireFailure(Reason.CLOSED, "", null);
		}
	}

	private void checkInterrupt() throws InterruptedException {
		if (Thread.interrupted()) {
			this.interrupts.interrupted(new InterruptedException());
		}
	}

}
