package dev.zklock.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * One attempt of this JVM to become the holder of a key in ZooKeeper, made by the thread at the
 * head of the key's local queue, so that a lock path holds one node per JVM however many threads
 * wait.
 *
 * <p>The recipe is Curator's {@code InterProcessMutex}, node for node, so both exclude each
 * other: a protected {@code EPHEMERAL_SEQUENTIAL} child {@code _c_<uuid>-lock-<seq>} under a
 * container parent; the lowest sequence holds; every other participant watches only its
 * predecessor. What differs is that every wait is held to the caller's deadline, including
 * waits for a lost connection, and that a node the attempt gives up on is always deleted.
 */
final class ZkParticipant {

	/** Curator's lock name, so that sequence numbers sort the same for both. */
	static final String LOCK_NAME = "lock-";

	/** Curator's prefix of protected node names. */
	static final String PROTECTED_PREFIX = "_c_";

	private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(ZkParticipant::sequenceOf);

	private final ZkOps ops;

	private final NodeReaper reaper;

	private final LockEntry entry;

	private final Deadline deadline;

	private final boolean waitForHolder;

	private final Interrupts interrupts;

	private String protectionId = UUID.randomUUID().toString();

	private @Nullable String ourPath;

	private @Nullable Stat ourStat;

	/** A create may have reached the server although its reply was lost. */
	private boolean createUncertain;

	private @Nullable String lastHolder;

	private boolean parentMissing;

	ZkParticipant(ZkOps ops, NodeReaper reaper, LockEntry entry, Deadline deadline, boolean waitForHolder,
			Interrupts interrupts) {
		this.ops = ops;
		this.reaper = reaper;
		this.entry = entry;
		this.deadline = deadline;
		this.waitForHolder = waitForHolder;
		this.interrupts = interrupts;
	}

	/**
	 * The sequence part of a lock node name: what follows {@code lock-}.
	 */
	static String sequenceOf(String nodeName) {
		int index = nodeName.lastIndexOf(LOCK_NAME);
		return (index >= 0) ? nodeName.substring(index + LOCK_NAME.length()) : nodeName;
	}

	/**
	 * Return the children of a lock path in queue order.
	 */
	static List<String> inQueueOrder(List<String> children) {
		List<String> sorted = new ArrayList<>(children);
		sorted.sort(BY_SEQUENCE);
		return sorted;
	}

	/**
	 * Acquire the key's lock in ZooKeeper.
	 * @return the lease, held
	 * @throws AcquireFailure if the deadline passed, ZooKeeper refused, or (without waiting) the
	 * lock is held by another participant
	 * @throws InterruptedException if interrupted and interruptible; the attempt's node is gone
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
				cleanUp();
			}
		}
	}

	private Lease loop() throws AcquireFailure, InterruptedException {
		String lockPath = this.entry.path();
		while (true) {
			boolean creating = false;
			CompletableFuture<List<String>> pipelined = null;
			try {
				if (this.ourPath == null) {
					if (this.createUncertain) {
						recoverUncertainCreate(lockPath);
						continue;
					}
					if (this.parentMissing) {
						ensureParents(lockPath);
						this.parentMissing = false;
					}
					creating = true;
					pipelined = createNode(lockPath);
					creating = false;
				}
				List<String> children = inQueueOrder(await((pipelined != null) ? pipelined
						: this.ops.getChildren(lockPath, this.entry.childWatcher())));
				String ourName = ZKPaths.getNodeFromPath(this.ourPath);
				int index = children.indexOf(ourName);
				if (index < 0) {
					// Our node is gone: the session that owned it expired under us
					this.ourPath = null;
					continue;
				}
				if (index == 0) {
					Stat stat = this.ourStat;
					if (children.size() > 1) {
						// Only ever raise it here: the child watch may already have raised it for a
						// participant that joined after this (older) child list was read
						this.entry.noteRemoteWaiter();
					}
					return new Lease(this.ourPath, stat.getCzxid(), stat.getEphemeralOwner());
				}
				this.lastHolder = children.get(0);
				if (!this.waitForHolder) {
					throw new AcquireFailure(Reason.HELD_REMOTELY, "holder " + this.lastHolder, null);
				}
				awaitDeletion(lockPath + "/" + children.get(index - 1));
			}
			catch (TimeoutException ex) {
				throw timedOut();
			}
			catch (KeeperException.NoNodeException ex) {
				if (creating) {
					this.parentMissing = true;
				}
				else {
					// The container parent was reaped, so our node is gone too
					this.ourPath = null;
				}
			}
			catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException ex) {
				if (creating) {
					this.createUncertain = true;
				}
				awaitConnected(ex);
			}
			catch (KeeperException.SessionExpiredException | KeeperException.SessionMovedException ex) {
				// Ephemeral nodes of the old session are gone with it
				this.ourPath = null;
				this.createUncertain = false;
				this.protectionId = UUID.randomUUID().toString();
				awaitConnected(ex);
			}
			catch (KeeperException ex) {
				throw new AcquireFailure(Reason.ERROR, ex.getMessage(), ex);
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
	 * Create our node and, in the same breath, ask for the children: one session's requests are
	 * applied in order, so the list already holds our node, and the acquisition costs one round
	 * trip instead of two. Returns the pending child list.
	 */
	private CompletableFuture<List<String>> createNode(String lockPath) throws Exception {
		String prefix = lockPath + "/" + PROTECTED_PREFIX + this.protectionId + "-" + LOCK_NAME;
		CompletableFuture<ZkOps.Created> create = this.ops.create(prefix, CreateMode.EPHEMERAL_SEQUENTIAL);
		CompletableFuture<List<String>> children = this.ops.getChildren(lockPath, this.entry.childWatcher());
		try {
			ZkOps.Created created = await(create);
			this.ourPath = created.path();
			this.ourStat = created.stat();
			return children;
		}
		catch (TimeoutException | InterruptedException ex) {
			// We stop waiting, but the create may still land: whatever it makes is deleted
			String id = this.protectionId;
			create.whenComplete((created, failure) -> {
				if (created != null) {
					this.reaper.delete(created.path());
				}
				else if (NodeReaper.unwrap(failure) instanceof KeeperException.ConnectionLossException) {
					this.reaper.sweep(lockPath, id);
				}
			});
			throw ex;
		}
	}

	private void recoverUncertainCreate(String lockPath) throws Exception {
		List<String> children = await(this.ops.getChildren(lockPath, null));
		this.createUncertain = false;
		for (String child : children) {
			if (child.contains(this.protectionId)) {
				Stat stat = await(this.ops.statWatching(lockPath + "/" + child, null));
				if (stat != null) {
					this.ourPath = lockPath + "/" + child;
					this.ourStat = stat;
				}
				return;
			}
		}
	}

	/**
	 * Create the lock path and any missing parents as containers, deepest first, because
	 * usually only the key's own node is missing. Works on server paths, so that a namespace's
	 * own node is made too, as Curator would on first use.
	 */
	private void ensureParents(String lockPath) throws Exception {
		createContainer(this.ops.serverPath(lockPath));
	}

	private void createContainer(String serverPath) throws Exception {
		try {
			await(this.ops.createContainer(serverPath));
		}
		catch (KeeperException.NodeExistsException ex) {
			// Another participant made it first
		}
		catch (KeeperException.NoNodeException ex) {
			createContainer(ZKPaths.getPathAndNode(serverPath).getPath());
			createContainer(serverPath);
		}
	}

	private void awaitDeletion(String predecessor) throws Exception {
		CompletableFuture<Void> changed = new CompletableFuture<>();
		Stat stat = await(this.ops.statWatching(predecessor, (event) -> changed.complete(null)));
		if (stat != null) {
			await(changed);
		}
	}

	private void awaitConnected(Exception cause) throws AcquireFailure, InterruptedException {
		while (!this.ops.isConnected()) {
			long remaining = this.deadline.remainingNanos();
			if (remaining <= 0) {
				throw new AcquireFailure(Reason.NOT_CONNECTED,
						"connect string " + this.ops.client().getZookeeperClient().getCurrentConnectionString(), cause);
			}
			try {
				long millis = this.deadline.isInfinite() ? Integer.MAX_VALUE
						: Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(remaining) + 1);
				if (this.ops.client().blockUntilConnected((int) millis, TimeUnit.MILLISECONDS)
						&& !this.ops.isConnected()) {
					// Curator reports the connection back a moment before the handle does: don't spin
					Thread.sleep(5);
				}
			}
			catch (InterruptedException ex) {
				this.interrupts.interrupted(ex);
			}
		}
	}

	private AcquireFailure timedOut() {
		if (!this.ops.isConnected()) {
			return new AcquireFailure(Reason.NOT_CONNECTED,
					"connect string " + this.ops.client().getZookeeperClient().getCurrentConnectionString(), null);
		}
		return new AcquireFailure(Reason.HELD_REMOTELY,
				(this.lastHolder != null) ? "holder " + this.lastHolder : "ZooKeeper did not answer in time", null);
	}

	private <T> T await(CompletableFuture<T> future) throws Exception {
		while (true) {
			try {
				if (this.deadline.isInfinite()) {
					return future.get();
				}
				long remaining = this.deadline.remainingNanos();
				if (remaining <= 0) {
					throw new TimeoutException();
				}
				return future.get(remaining, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				this.interrupts.interrupted(ex);
			}
			catch (ExecutionException ex) {
				Throwable cause = NodeReaper.unwrap(ex);
				if (cause instanceof Exception exception) {
					throw exception;
				}
				throw ex;
			}
		}
	}

	private void cleanUp() {
		if (this.ourPath != null) {
			this.reaper.delete(this.ourPath);
		}
		else if (this.createUncertain) {
			this.reaper.sweep(this.entry.path(), this.protectionId);
		}
	}

}
