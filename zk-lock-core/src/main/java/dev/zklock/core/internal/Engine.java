package dev.zklock.core.internal;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.LostLockPolicy;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.ZkLockOptions;

/**
 * The parts of a registry that every recipe shares, kept private behind what the recipes
 * and the registry ask of them: the client's operations, the reaper, the one watcher, the
 * session tracker, the listeners, and the recipes' entry tables. It also does what the
 * recipes do alike: take a node for a participant, apply the lost-lock policy after a
 * release, and let go of the client once closed and idle.
 */
public final class Engine {

	private static final Logger logger = LoggerFactory.getLogger(Engine.class);

	private final ZkLockOptions options;

	private final ZkOps ops;

	private final NodeReaper reaper;

	private final ZkLockListeners listeners = new ZkLockListeners();

	private final LockTables tables;

	private final SessionTracker sessions;

	private final RemoteWaiters remoteWaiters;

	private final LockWatches watches;

	private final Revocations revocations;

	/** Run once the client is let go of, before the reaper closes: a recipe's timers. */
	private final List<Runnable> detachHooks = new CopyOnWriteArrayList<>();

	private volatile boolean closed;

	private final AtomicBoolean detached = new AtomicBoolean();

	public Engine(CuratorFramework client, ZkLockOptions options) {
		this.options = options;
		this.ops = new ZkOps(client, processName(), options.acl());
		this.reaper = new NodeReaper(client, this.ops);
		this.tables = new LockTables(this::retired);
		this.sessions = new SessionTracker(client, this.ops, this.tables, this.listeners);
		this.remoteWaiters = new RemoteWaiters(this.ops, this.tables);
		// The revocations are made with the watches: the events find them when they come
		this.watches = new LockWatches(new WatchEvents(this.remoteWaiters, () -> Engine.this.revocations));
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
	 * Take a node under {@code lockPath} in ZooKeeper for {@code entry}, as
	 * {@code driver} says, on the client's current session: a node granted on a session
	 * that has just ended is deleted and the attempt starts over. The caller publishes
	 * the node in its entry and then closes the publication; until then no session event
	 * is applied, so that none falls between the grant and the publication.
	 * <p>
	 * A timed wait ({@code waitForOthers}) holds everything to the caller's deadline:
	 * round trips, and a lost connection, which it waits for while time is left. A single
	 * attempt (a zero wait) waits for no one: it fails at once, with
	 * {@link LockAcquisitionException.Reason#NOT_CONNECTED NOT_CONNECTED} naming the
	 * connection's state, if the client is not connected when it starts; connected, its
	 * create and list need ZooKeeper's replies, which it waits for up to the client's
	 * connection timeout, the bound Curator puts on getting a connection, also across a
	 * connection lost during the attempt.
	 * @return the node, to be published before the publication is closed
	 */
	public Publication acquireNode(TableEntry entry, String lockPath, LockDriver driver, Deadline deadline,
			boolean waitForOthers, Interrupts interrupts) throws AcquireFailure, InterruptedException {
		if (!waitForOthers && !this.ops.isConnected()) {
			throw new AcquireFailure(LockAcquisitionException.Reason.NOT_CONNECTED, this.sessions.notConnected(), null);
		}
		Deadline zkDeadline = waitForOthers ? deadline : singleAttemptDeadline();
		while (true) {
			HeldNode node = new Acquisition(this.ops, this.reaper, this.watches, this.sessions, entry, lockPath, driver,
					zkDeadline, waitForOthers, interrupts)
				.acquire();
			if (this.sessions.admit(node)) {
				return new Publication(this.sessions, entry, node);
			}
			this.reaper.delete(node.nodePath());
		}
	}

	/**
	 * The bound of ZooKeeper's replies for a caller who gave no wait: the client's
	 * connection timeout, the bound Curator puts on getting a connection.
	 */
	public Deadline singleAttemptDeadline() {
		return Deadline.after(TimeUnit.MILLISECONDS.toNanos(this.ops.connectionTimeoutMs()));
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

	/**
	 * How many times in a row a node may pass to a local waiter while another JVM waits.
	 */
	public int maxLocalHandoffs() {
		return this.options.maxLocalHandoffs();
	}

	/**
	 * How long a released mutex node is kept for this JVM's next acquisition; zero when
	 * off.
	 */
	public Duration linger() {
		return this.options.linger();
	}

	/**
	 * The session of the client's current ZooKeeper handle; 0 while it has none.
	 */
	public long currentSession() {
		return this.ops.sessionId();
	}

	/**
	 * The client's session while it is connected, else 0.
	 */
	public long sessionIfConnected() {
		return this.ops.isConnected() ? this.ops.sessionId() : 0;
	}

	/**
	 * Why the client cannot send a request now, naming the connection's state;
	 * {@code null} while it is connected.
	 */
	public @Nullable String whyNotConnected() {
		return this.ops.isConnected() ? null : this.sessions.notConnected();
	}

	/**
	 * The client's connection timeout, in milliseconds.
	 */
	public int connectionTimeoutMs() {
		return this.ops.connectionTimeoutMs();
	}

	/**
	 * The servers the client talks to, for messages.
	 */
	public String connectString() {
		return this.ops.connectString();
	}

	/**
	 * The connection state last reported by Curator, and since when.
	 */
	public ConnectionStatus connectionStatus() {
		return this.sessions.status();
	}

	/**
	 * Delete a node until ZooKeeper confirms it, through the reaper; returns at once.
	 * @return the first try
	 */
	public CompletableFuture<Void> deleteNode(String nodePath) {
		return this.reaper.delete(nodePath);
	}

	/**
	 * Wait until every delete sent so far is confirmed.
	 * @return whether they were, within {@code timeout}
	 */
	public boolean awaitDeletesConfirmed(Duration timeout) throws InterruptedException {
		return this.reaper.awaitConfirmed(timeout);
	}

	/**
	 * List a lock path's children with the registry's child watch, telling
	 * {@code onReply} of the list on the client's event thread before any event that
	 * follows it.
	 */
	public CompletableFuture<List<String>> listWatched(String path, Consumer<List<String>> onReply) {
		return this.ops.getChildren(path, this.watches, onReply);
	}

	/**
	 * List a path's children, without a watch.
	 */
	public CompletableFuture<List<String>> listChildren(String path) {
		return this.ops.getChildren(path, null);
	}

	/**
	 * Read a node's data, without a watch; {@code null} if it does not exist.
	 */
	public CompletableFuture<ZkOps.@Nullable NodeData> readNode(String path) {
		return this.ops.getData(path, null);
	}

	/**
	 * List some paths' children and read other nodes in one multi-read, without watches
	 * (see {@link ZkOps#multiRead}).
	 */
	public CompletableFuture<List<ZkOps.MultiRead>> readMany(List<String> listed, List<String> read) {
		return this.ops.multiRead(listed, read);
	}

	/**
	 * Read a node's stat, without a watch; {@code null} if it does not exist.
	 */
	public CompletableFuture<@Nullable Stat> statNode(String path) {
		return this.ops.stat(path);
	}

	/**
	 * Ask the holder of a node to let go, by writing the revocation request into it if
	 * its version is still {@code version}.
	 * @return whether it was written
	 */
	public CompletableFuture<Boolean> requestRevocation(String nodePath, int version) {
		return this.ops.setData(nodePath, Revocations.REVOKE, version);
	}

	/**
	 * Write this participant's data into a node it holds again, if nobody wrote it since
	 * its create (version 0): the node's modification time then says when it came to
	 * lead. A revocation request written first stays.
	 */
	public CompletableFuture<Boolean> markLeading(String nodePath) {
		return this.ops.setData(nodePath, this.ops.participantData(), 0);
	}

	/**
	 * Tell {@code listener} when someone asks {@code who} to give {@code node} back.
	 */
	public void onRevocationRequested(HeldNode node, Holder who, Runnable listener) {
		this.revocations.listen(node, who, listener);
	}

	/**
	 * Watch a node that starts to linger for a revocation request, which ends its linger.
	 */
	public void watchLingering(HeldNode kept) {
		this.revocations.watchLingering(kept);
	}

	/**
	 * A transaction guarded by the nodes {@code held} returns when it runs.
	 */
	public GuardedTransaction guardedTransaction(Supplier<List<GuardedMulti.Guard>> held) {
		return new GuardedMulti(this.ops, held);
	}

	/**
	 * Tell the listeners that a key's node passed to another local holder.
	 */
	public void tellHandedOff(String key) {
		this.listeners.tell((listener) -> listener.handedOff(key), "lock '" + key + "' was handed off");
	}

	/**
	 * Tell the listeners, on the acquiring thread, that it holds a key now.
	 */
	public void tellAcquired(String key, String path) {
		this.listeners.tell((listener) -> listener.acquired(key, path), "lock '" + key + "' was acquired");
	}

	public void addListener(ZkLockListener listener) {
		this.listeners.add(listener);
	}

	public void removeListener(ZkLockListener listener) {
		this.listeners.remove(listener);
	}

	/**
	 * How many keys the recipes keep in memory: those held or waited for.
	 */
	public int entryCount() {
		return this.tables.size();
	}

	public boolean isClosed() {
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
	 * The data of every node this engine makes: {@code pid@host}.
	 */
	public byte[] participantData() {
		return this.ops.participantData();
	}

	private static byte[] processName() {
		// "pid@host": lets anyone reading the lock path see which process each node
		// belongs to
		return ManagementFactory.getRuntimeMXBean().getName().getBytes(StandardCharsets.UTF_8);
	}

}
