package dev.zklock.core.internal;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.LostLockPolicy;
import dev.zklock.core.ZkLockOptions;

/**
 * The parts of a registry that every recipe shares: the client's operations, the reaper,
 * the one watcher, the session tracker, the listeners, and the recipes' entry tables. It
 * also holds what the recipes do alike: start a participant, apply the lost-lock policy
 * after a release, and let go of the client once closed and idle.
 */
public final class Engine {

	private static final Logger logger = LoggerFactory.getLogger(Engine.class);

	public final ZkLockOptions options;

	public final ZkOps ops;

	public final NodeReaper reaper;

	public final ZkLockListeners listeners = new ZkLockListeners();

	public final LockTables tables;

	public final SessionTracker sessions;

	final RemoteWaiters remoteWaiters;

	public final LockWatches watches;

	public final Revocations revocations;

	/** Run once the client is let go of, before the reaper closes: a recipe's timers. */
	private final List<Runnable> detachHooks = new CopyOnWriteArrayList<>();

	private volatile boolean closed;

	private final AtomicBoolean detached = new AtomicBoolean();

	public Engine(CuratorFramework client, ZkLockOptions options) {
		this.options = options;
		this.ops = new ZkOps(client, participantData(), options.acl());
		this.reaper = new NodeReaper(client, this.ops);
		this.tables = new LockTables(this::retired);
		this.sessions = new SessionTracker(client, this.ops, this.tables, this.listeners);
		this.remoteWaiters = new RemoteWaiters(this.ops, this.tables);
		this.watches = new LockWatches(new WatchEvents());
		this.revocations = new Revocations(this.ops, this.watches, this.tables, this.sessions);
	}

	/**
	 * Make a recipe's entry table.
	 * @param factory makes an entry from a key and its path
	 */
	public <E extends TableEntry> LockTable<E> newTable(BiFunction<String, String, E> factory) {
		return this.tables.add(factory);
	}

	/**
	 * Run {@code hook} once the registry lets go of the client: closed, and no lock left.
	 */
	public void whenDetached(Runnable hook) {
		this.detachHooks.add(hook);
	}

	/**
	 * Every entry of every recipe, for the session tracker and the snapshots.
	 */
	public Iterable<TableEntry> entries() {
		return this.tables;
	}

	/**
	 * Find or create a path's entry in a recipe's table and count the caller in, while
	 * the registry is open.
	 * @throws IllegalStateException if the registry was closed before
	 * @throws AcquireFailure if it closed while the entry was retained
	 */
	public <E extends TableEntry> E retain(LockTable<E> table, String key, String path) throws AcquireFailure {
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
	 * @return the node, published
	 */
	public HeldNode acquireNode(TableEntry entry, String lockPath, LockDriver driver, Deadline deadline,
			boolean waitForOthers, Interrupts interrupts, Consumer<HeldNode> install)
			throws AcquireFailure, InterruptedException {
		if (!waitForOthers && !this.ops.isConnected()) {
			throw new AcquireFailure(LockAcquisitionException.Reason.NOT_CONNECTED, this.sessions.notConnected(), null);
		}
		Deadline zkDeadline = waitForOthers ? deadline
				: Deadline.after(TimeUnit.MILLISECONDS.toNanos(this.ops.connectionTimeoutMs()));
		while (true) {
			HeldNode node = new Acquisition(this.ops, this.reaper, this.watches, this.sessions, entry, lockPath, driver,
					zkDeadline, waitForOthers, interrupts)
				.acquire();
			if (this.sessions.publish(entry, node, () -> install.accept(node))) {
				return node;
			}
			this.reaper.delete(node.nodePath());
		}
	}

	/**
	 * Wait for ZooKeeper to confirm the delete of a released node, if the options ask for
	 * it and the client is connected. By default the release does not wait: the delete is
	 * sent, this session's next create is applied after it, and another participant is
	 * woken by its watch when it is applied; the reaper keeps trying if it fails.
	 */
	public void awaitDelete(@Nullable CompletableFuture<Void> delete) {
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
	 * Apply the lost-lock policy to a node just released.
	 */
	public void checkLost(TableEntry entry, @Nullable HeldNode node) {
		if (node != null && node.state() == LeaseState.LOST) {
			LockLostException lost = new LockLostException(entry.key(), entry.path(), node.fencingToken(),
					node.lostBecause());
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

	public void close() {
		this.closed = true;
		this.tables.forEachEntry(TableEntry::close);
		retired();
	}

	/**
	 * Let go of the client once closed and no lock is left: the last node has been
	 * released.
	 */
	private void retired() {
		if (this.closed && this.tables.isEmpty() && this.detached.compareAndSet(false, true)) {
			this.sessions.detach();
			this.detachHooks.forEach(Runnable::run);
			this.reaper.close();
		}
	}

	/**
	 * What the one watcher hears, to whom it goes: child events to the remote waiters,
	 * node events to the revocations (and to the remote waiters, for a lock path gone).
	 */
	private final class WatchEvents implements LockWatches.Events {

		@Override
		public void childrenChanged(String serverPath) {
			Engine.this.remoteWaiters.childrenChanged(serverPath);
		}

		@Override
		public void childWatchRemoved(String serverPath) {
			Engine.this.remoteWaiters.childWatchRemoved(serverPath);
		}

		@Override
		public void nodeChanged(String serverPath, boolean deleted) {
			Engine.this.revocations.changed(serverPath, deleted);
		}

		@Override
		public void connectionChanged() {
			Engine.this.revocations.reconnected();
		}

		@Override
		public void connectionDown() {
			Engine.this.remoteWaiters.connectionDown();
		}

	}

	private static byte[] participantData() {
		// "pid@host": lets anyone reading the lock path see which process each node
		// belongs to
		return ManagementFactory.getRuntimeMXBean().getName().getBytes(StandardCharsets.UTF_8);
	}

}
