package dev.zklock.core;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of a registry that every recipe shares: the client's operations, the reaper,
 * the one watcher, the session tracker, the listeners, and one entry table per recipe. It
 * also holds what the recipes do alike: start a participant, apply the lost-lock policy
 * after a release, and let go of the client once closed and idle.
 */
final class Engine {

	private static final Logger logger = LoggerFactory.getLogger(Engine.class);

	final ZkLockOptions options;

	final ZkOps ops;

	final NodeReaper reaper;

	final LockWatches watches;

	final Revocations revocations;

	final ZkLockListeners listeners = new ZkLockListeners();

	final LockTable<LockEntry> mutexes;

	final LockTable<ReadWriteEntry> readWrites;

	final LockTable<SemaphoreEntry> semaphores;

	final SessionTracker sessions;

	/** Keeps exclusive locks' released nodes for a while; null when off. */
	private final @Nullable Linger linger;

	private volatile boolean closed;

	private final AtomicBoolean detached = new AtomicBoolean();

	Engine(CuratorFramework client, ZkLockOptions options) {
		this.options = options;
		this.ops = new ZkOps(client, participantData(), options.acl());
		this.reaper = new NodeReaper(client, this.ops);
		this.revocations = new Revocations(this.ops);
		this.watches = new LockWatches(this::childrenChanged, this::childWatchRemoved, this.revocations::changed,
				this.revocations::reconnected, this::connectionDown);
		this.revocations.watchWith(this.watches, this::revocationRequested, this::watchedNodeDeleted);
		this.linger = options.linger().isZero() ? null
				: new Linger(options.linger(), this.reaper, () -> this.ops.isConnected() ? this.ops.sessionId() : 0,
						this.revocations::watchLingering, this::retireIfIdle);
		Linger lingerOfEntries = this.linger;
		// With no local hand-off, what the list would tell changes nothing
		BiConsumer<LockEntry, Lease> lister = (options.maxLocalHandoffs() > 0) ? this::listHeldNode
				: LockEntry::heldNodeListFailed;
		this.mutexes = new LockTable<>((key, path) -> new LockEntry(key, path, lingerOfEntries, lister), this::retired);
		this.readWrites = new LockTable<>(ReadWriteEntry::new, this::retired);
		this.semaphores = new LockTable<>(SemaphoreEntry::new, this::retired);
		this.sessions = new SessionTracker(client, this.ops, this::entries, this.listeners);
	}

	/**
	 * Every entry of every recipe, for the session tracker and the snapshots.
	 */
	Iterable<TableEntry> entries() {
		return () -> Stream
			.of(this.mutexes.values().stream(), this.readWrites.values().stream(), this.semaphores.values().stream())
			.flatMap((entries) -> entries.map(TableEntry.class::cast))
			.iterator();
	}

	/**
	 * Find or create a path's entry in a recipe's table and count the caller in, while
	 * the registry is open.
	 * @throws IllegalStateException if the registry was closed before
	 * @throws AcquireFailure if it closed while the entry was retained
	 */
	<E extends TableEntry> E retain(LockTable<E> table, String key, String path) throws AcquireFailure {
		checkOpen();
		E entry = table.retain(key, path);
		if (this.closed) {
			// Closed between the check and the retain: close() may not have seen this
			// entry
			table.release(entry);
			throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
		}
		return entry;
	}

	/**
	 * Hold a node under {@code lockPath} in ZooKeeper for {@code entry}, as
	 * {@code driver} says, and publish it through {@code install} while its session is
	 * the client's: a node granted on a session that has just ended is deleted and the
	 * attempt starts over.
	 * <p>
	 * A timed wait ({@code waitForOthers}) holds everything to the caller's deadline:
	 * round trips, and a lost connection, which it waits for while time is left. A single
	 * attempt (a zero wait) waits for no one: it fails at once, with
	 * {@link LockAcquisitionException.Reason#NOT_CONNECTED NOT_CONNECTED} naming the
	 * connection's state, if the client is not connected when it starts; connected, its
	 * create and list need ZooKeeper's replies, which it waits for up to the client's
	 * connection timeout, the bound Curator puts on getting a connection, also across a
	 * connection lost during the attempt.
	 * @return the lease, published
	 */
	Lease acquireNode(TableEntry entry, String lockPath, LockDriver driver, Deadline deadline, boolean waitForOthers,
			Interrupts interrupts, Consumer<Lease> install) throws AcquireFailure, InterruptedException {
		if (!waitForOthers && !this.ops.isConnected()) {
			throw new AcquireFailure(LockAcquisitionException.Reason.NOT_CONNECTED, this.sessions.notConnected(), null);
		}
		Deadline zkDeadline = waitForOthers ? deadline
				: Deadline.after(TimeUnit.MILLISECONDS.toNanos(this.ops.connectionTimeoutMs()));
		while (true) {
			Lease lease = new ZkParticipant(this.ops, this.reaper, this.watches, this.sessions, entry, lockPath, driver,
					zkDeadline, waitForOthers, interrupts)
				.acquire();
			if (this.sessions.publish(entry, lease, () -> install.accept(lease))) {
				return lease;
			}
			this.reaper.delete(lease.nodePath());
		}
	}

	/**
	 * Wait for ZooKeeper to confirm the delete of a released node, if the options ask for
	 * it and the client is connected. By default the release does not wait: the delete is
	 * sent, this session's next create is applied after it, and another participant is
	 * woken by its watch when it is applied; the reaper keeps trying if it fails.
	 */
	void awaitDelete(@Nullable CompletableFuture<Void> delete) {
		if (delete == null || this.options.releaseTimeout().isZero() || !this.ops.isConnected()) {
			return;
		}
		try {
			Futures.await(delete, this.options.releaseTimeout().toNanos());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			// The reaper keeps trying; the node is ephemeral in any case
		}
	}

	/**
	 * Apply the lost-lock policy to a lease just released.
	 */
	void checkLost(TableEntry entry, @Nullable Lease lease) {
		if (lease != null && lease.state() == LeaseState.LOST) {
			LockLostException lost = new LockLostException(entry.key(), entry.path(), lease.fencingToken(),
					lease.lostBecause());
			if (this.options.lostLockPolicy() == LostLockPolicy.THROW) {
				throw lost;
			}
			logger.warn(lost.getMessage());
		}
	}

	boolean isClosed() {
		return this.closed;
	}

	void checkOpen() {
		if (this.closed) {
			throw new IllegalStateException("ZkLockRegistry is closed");
		}
	}

	void close() {
		this.closed = true;
		this.entries().forEach(TableEntry::close);
		retired();
	}

	/**
	 * Let go of the client once closed and no lock is left: the last lease has been
	 * released.
	 */
	private void retired() {
		if (this.closed && this.mutexes.isEmpty() && this.readWrites.isEmpty() && this.semaphores.isEmpty()
				&& this.detached.compareAndSet(false, true)) {
			this.sessions.detach();
			if (this.linger != null) {
				this.linger.close();
			}
			this.reaper.close();
		}
	}

	private void retireIfIdle(LockEntry entry) {
		this.mutexes.retireIfIdle(entry);
	}

	/**
	 * Delete every lingering node now.
	 */
	void endLingers() {
		this.mutexes.values().forEach(LockEntry::endLinger);
	}

	/**
	 * Someone asked for a node back: if it lingers, nobody holds it to decide, so it
	 * goes.
	 */
	private void revocationRequested(Lease lease) {
		LockEntry entry = this.mutexes.get(ZKPaths.getPathAndNode(lease.nodePath()).getPath());
		if (entry != null) {
			entry.endLingerOf(lease);
		}
	}

	/**
	 * A node watched for revocation requests is gone. Every release and every end of a
	 * linger takes the lease out of its entry before it sends the delete, and a lease is
	 * never put back: a lease still in its entry when its delete is seen was deleted by
	 * another client, and this JVM holds the lock no more.
	 */
	private void watchedNodeDeleted(Lease lease) {
		String lockPath = ZKPaths.getPathAndNode(lease.nodePath()).getPath();
		// Only these two recipes' holds listen for revocation, and only a mutex lingers
		LockEntry exclusive = this.mutexes.get(lockPath);
		if (exclusive != null) {
			this.sessions.nodeDeleted(exclusive, lease);
		}
		ReadWriteEntry readWrite = this.readWrites.get(lockPath);
		if (readWrite != null) {
			this.sessions.nodeDeleted(readWrite, lease);
		}
	}

	/**
	 * The client lost its connection (or its session): a child watch may be re-armed on
	 * reconnect, or may not (the client can be told not to re-arm, and a lock path gone
	 * meanwhile fires another event), so every lock that hands on or joins locally counts
	 * as having a remote waiter until its next child list read with the watch, and
	 * lingering nodes go.
	 */
	private void connectionDown() {
		this.mutexes.values().forEach(LockEntry::noteUnwatched);
		this.readWrites.values().forEach(ReadWriteEntry::noteRemoteWaiter);
	}

	/**
	 * The child watch fired on a lock path: another participant may have joined the queue
	 * behind the node this JVM holds.
	 */
	private void childrenChanged(String serverPath) {
		String path = this.ops.withoutNamespace(serverPath);
		// Both, if a key is used with both recipes: each queues on the same path
		TableEntry exclusive = this.mutexes.get(path);
		if (exclusive != null) {
			exclusive.noteRemoteWaiter();
		}
		ReadWriteEntry readWrite = this.readWrites.get(path);
		if (readWrite != null) {
			readWrite.noteRemoteWaiter();
			listReadNode(readWrite);
		}
	}

	/**
	 * Other code on the client removed the child watch on a lock path: a participant that
	 * queues behind the node this JVM holds now fires nothing. An exclusive key counts
	 * one as queued until its node is listed again with the watch (at once, if threads of
	 * this JVM queue for it); a read/write key raises its mark, and lists its read node
	 * again with the watch. So the bound on hand-offs and joins while another participant
	 * waits holds whatever other code does with the client's watches.
	 */
	private void childWatchRemoved(String serverPath) {
		String path = this.ops.withoutNamespace(serverPath);
		LockEntry exclusive = this.mutexes.get(path);
		if (exclusive != null) {
			exclusive.childWatchRemoved();
		}
		ReadWriteEntry readWrite = this.readWrites.get(path);
		if (readWrite != null) {
			readWrite.noteRemoteWaiter();
			listReadNode(readWrite);
		}
	}

	/**
	 * Read a read/write key's children again with the watch, not waited for, if its mark
	 * is raised while it holds a read node that no list has shown a write node behind:
	 * another JVM's reader, which holds alongside the read node, fires the child watch as
	 * a writer, which waits behind it, does, and only the list tells them apart. Once a
	 * writer is seen, nothing can clear the mark until the node goes, so no more lists.
	 */
	void listReadNode(ReadWriteEntry entry) {
		Lease read = entry.readNodeToList();
		if (read != null) {
			this.ops.getChildren(entry.path(), this.watches, (children) -> entry.readNodeListed(read, children));
		}
	}

	/**
	 * Read an exclusive key's children again with the watch, not waited for, while
	 * {@code held} is its node: a node listed without the watch left the entry unable to
	 * tell whether another JVM queues behind it, and its threads now take turns on it.
	 */
	private void listHeldNode(LockEntry entry, Lease held) {
		this.ops.getChildren(entry.path(), this.watches, (children) -> entry.heldNodeListed(held, children))
			.whenComplete((children, ex) -> {
				if (ex != null) {
					entry.heldNodeListFailed(held);
				}
			});
	}

	private static byte[] participantData() {
		// "pid@host": lets anyone reading the lock path see which process each node
		// belongs to
		return ManagementFactory.getRuntimeMXBean().getName().getBytes(StandardCharsets.UTF_8);
	}

}
