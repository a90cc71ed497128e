package dev.zklock.core;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point of the engine: hands out {@link ZkLock locks} and {@link ZkLease leases} for
 * keys, all backed by one {@link CuratorFramework} client that the caller owns and starts.
 *
 * <p>The lock for key {@code K} lives at {@code <rootPath>/K}. Inside one JVM, threads that want
 * the same key queue locally, first come first served; only the head of that queue has a node in
 * ZooKeeper, so a lock path has one child per JVM, whatever the number of threads. When the holder
 * releases and another local thread waits, the node passes to that thread with no ZooKeeper
 * round trip, unless another JVM is waiting and the node has already been passed on
 * {@link ZkLockOptions#maxLocalHandoffs()} times since; then it is deleted and the remote waiter
 * goes first.
 *
 * <p>A key leaves the registry's memory as soon as nobody holds or waits for it. Thread safe.
 *
 * @author zk-lock
 */
public class ZkLockRegistry implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockRegistry.class);

	private final CuratorFramework client;

	private final ZkLockOptions options;

	private final ZkOps ops;

	private final NodeReaper reaper;

	private final ConcurrentHashMap<String, LockEntry> entries = new ConcurrentHashMap<>();

	private final ZkLockListeners listeners = new ZkLockListeners();

	private final LockWatches watches;

	private final SessionTracker sessions;

	private volatile boolean closed;

	private final AtomicBoolean detached = new AtomicBoolean();

	/**
	 * Create a registry with {@link ZkLockOptions#defaults() default options}.
	 * @param client the Curator client, started by the caller
	 */
	public ZkLockRegistry(CuratorFramework client) {
		this(client, ZkLockOptions.defaults());
	}

	/**
	 * Create a registry.
	 * @param client the Curator client, started by the caller
	 * @param options the options
	 */
	public ZkLockRegistry(CuratorFramework client, ZkLockOptions options) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.options = Objects.requireNonNull(options, "options must not be null");
		this.ops = new ZkOps(client, participantData(), options.acl());
		this.reaper = new NodeReaper(client, this.ops);
		this.watches = new LockWatches(this::childrenChanged);
		this.sessions = new SessionTracker(client, this.ops, this.entries.values(), this.listeners);
	}

	/**
	 * Return a lock for a key. Cheap: the handle keeps nothing in memory while unused.
	 * @param key the key, one ZooKeeper path segment (see {@link LockPaths#validateKey})
	 * @return the lock
	 * @throws IllegalArgumentException if the key cannot be a lock key
	 */
	public ZkLock obtain(String key) {
		return new DefaultZkLock(this, key, lockPath(key));
	}

	/**
	 * Return one lock for several keys: taken in the keys' natural order (the same in every JVM,
	 * so that callers locking overlapping sets cannot deadlock one another), under one deadline,
	 * all or nothing, and released in reverse order. Duplicate keys count once; each key is
	 * reentrant on its own. A lock on several keys has no single fencing token: read each key's
	 * through {@link #obtain}.
	 * @param keys the keys, at least one
	 * @return the lock; for a single distinct key, the same as {@link #obtain}
	 * @throws IllegalArgumentException if there is no key, or a key cannot be a lock key
	 */
	public ZkLock obtainAll(java.util.Collection<String> keys) {
		Objects.requireNonNull(keys, "keys must not be null");
		java.util.SortedSet<String> sorted = new java.util.TreeSet<>();
		for (String key : keys) {
			lockPath(key);
			sorted.add(key);
		}
		if (sorted.isEmpty()) {
			throw new IllegalArgumentException("At least one lock key is needed, but none was given");
		}
		if (sorted.size() == 1) {
			return obtain(sorted.first());
		}
		return new MultiKeyLock(this, sorted.stream().map(this::obtain).toList());
	}

	/**
	 * Acquire a lease on a key: a hold that any thread may release, for work that ends on
	 * another thread than it began.
	 * @param key the key
	 * @param wait the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @return the lease, held
	 * @throws LockAcquisitionException if not acquired within the wait
	 */
	public ZkLease acquireLease(String key, Duration wait) {
		String path = lockPath(key);
		DefaultZkLease lease = new DefaultZkLease(this, key, path);
		acquireOrThrow(key, path, lease, wait);
		lease.acquired(this.entries.get(key));
		return lease;
	}

	/**
	 * Run a task while holding the lock for a key, waiting the
	 * {@link ZkLockOptions#defaultWait() default wait}.
	 * @param <T> the result type
	 * @param key the key
	 * @param task the task
	 * @return the task's result
	 * @throws LockAcquisitionException if not acquired within the wait
	 * @throws Exception what the task throws
	 */
	public <T> T executeLocked(String key, Callable<T> task) throws Exception {
		return executeLocked(key, this.options.defaultWait(), task);
	}

	/**
	 * Run a task while holding the lock for a key.
	 * @param <T> the result type
	 * @param key the key
	 * @param wait the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @param task the task
	 * @return the task's result
	 * @throws LockAcquisitionException if not acquired within the wait
	 * @throws Exception what the task throws
	 */
	public <T> T executeLocked(String key, Duration wait, Callable<T> task) throws Exception {
		ZkLock lock = obtain(key);
		lock.acquire(wait);
		try {
			return task.call();
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Run a task while holding the lock for a key.
	 * @param key the key
	 * @param wait the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @param task the task
	 * @throws LockAcquisitionException if not acquired within the wait
	 */
	public void executeLocked(String key, Duration wait, Runnable task) {
		ZkLock lock = obtain(key);
		lock.acquire(wait);
		try {
			task.run();
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Register a listener for lease state changes and hand-offs. A listener that throws is
	 * logged; it cannot keep the others from being told, nor the engine from tracking its
	 * leases.
	 * @param listener the listener
	 */
	public void addListener(ZkLockListener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Remove a listener.
	 * @param listener the listener
	 */
	public void removeListener(ZkLockListener listener) {
		this.listeners.remove(listener);
	}

	/**
	 * Return the options.
	 * @return the options
	 */
	public ZkLockOptions getOptions() {
		return this.options;
	}

	/**
	 * Return the Curator client.
	 * @return the client
	 */
	public CuratorFramework getClient() {
		return this.client;
	}

	/**
	 * Return the ZooKeeper path of a key's lock.
	 * @param key the key
	 * @return the path
	 * @throws IllegalArgumentException if the key cannot be a lock key
	 */
	public String lockPath(String key) {
		return LockPaths.lockPath(this.options.rootPath(), key);
	}

	/**
	 * Return a snapshot of the keys this JVM holds or waits for.
	 * @return one element per key, in no particular order
	 */
	public List<LocalLockInfo> localLocks() {
		List<LocalLockInfo> result = new ArrayList<>();
		for (LockEntry entry : this.entries.values()) {
			Lease lease = entry.lease();
			Thread owner = entry.ownerThread();
			result.add(new LocalLockInfo(entry.key(), entry.path(), entry.isHeld(),
					(owner != null) ? owner.getName() : null, entry.heldSince(), entry.waiterCount(),
					(lease != null) ? lease.nodePath() : null, (lease != null) ? lease.fencingToken() : null,
					(lease != null) ? lease.state() : null));
		}
		return result;
	}

	/**
	 * Return how many keys this JVM holds right now.
	 * @return the number of held keys
	 */
	public int heldCount() {
		int count = 0;
		for (LockEntry entry : this.entries.values()) {
			if (entry.isHeld()) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Return how many threads and leases of this JVM wait for a lock right now, in the local
	 * queue or for ZooKeeper.
	 * @return the number of waiters
	 */
	public int waitingCount() {
		int count = 0;
		for (LockEntry entry : this.entries.values()) {
			count += entry.waitingCount();
		}
		return count;
	}

	/**
	 * Return the connection state last reported by Curator, and since when.
	 * @return the connection status
	 */
	public ConnectionStatus connectionStatus() {
		return this.sessions.status();
	}

	/**
	 * Return the participants queued for a key in ZooKeeper, across all JVMs, in queue order:
	 * the first holds the lock. Reads ZooKeeper: the child list, then every child at once; the
	 * whole read is bounded by the client's connection timeout.
	 * @param key the key
	 * @return the participants, empty if none
	 * @throws TimeoutException if ZooKeeper did not answer within the connection timeout
	 * @throws Exception if ZooKeeper refused the read
	 */
	public List<Participant> participants(String key) throws Exception {
		String path = lockPath(key);
		Deadline deadline = Deadline.after(TimeUnit.MILLISECONDS.toNanos(this.ops.connectionTimeoutMs()));
		List<String> children;
		try {
			children = ZkParticipant.inQueueOrder(awaitRead(this.ops.getChildren(path, null), deadline, key, path));
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
		List<CompletableFuture<ZkOps.@Nullable NodeData>> reads = new ArrayList<>();
		for (String child : children) {
			reads.add(this.ops.getData(path + "/" + child, null));
		}
		List<Participant> participants = new ArrayList<>();
		for (int i = 0; i < children.size(); i++) {
			ZkOps.NodeData read = awaitRead(reads.get(i), deadline, key, path);
			if (read == null) {
				// Released while we read: no longer a participant
				continue;
			}
			String child = children.get(i);
			participants.add(new Participant(child, ZkParticipant.sequenceOf(child),
					new String(read.data(), StandardCharsets.UTF_8), read.stat().getCzxid(), participants.isEmpty(),
					read.stat().getEphemeralOwner()));
		}
		return participants;
	}

	private <T> T awaitRead(CompletableFuture<T> reply, Deadline deadline, String key, String path) throws Exception {
		try {
			return reply.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("ZooKeeper did not answer within " + this.ops.connectionTimeoutMs()
					+ " ms when listing the participants of lock '" + key + "' (" + path + "), connect string "
					+ this.ops.connectString());
		}
		catch (ExecutionException ex) {
			Throwable cause = NodeReaper.unwrap(ex);
			throw (cause instanceof Exception exception) ? exception : ex;
		}
	}

	/**
	 * Return how many keys the registry keeps in memory: those held or waited for.
	 * @return the number of entries
	 */
	public int size() {
		return this.entries.size();
	}

	/**
	 * Stop handing out locks: later calls to {@link #obtain} and {@link #acquireLease} throw
	 * {@link IllegalStateException}, and threads still waiting for a lock of this registry fail
	 * with {@link LockAcquisitionException.Reason#CLOSED}. Locks held at this moment stay held
	 * until released, and are tracked as before: their lease state follows the session, and
	 * their nodes are deleted when released, retried on reconnect if need be. The registry lets go
	 * of the client once the last of them is released; the client itself is not closed.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.entries.values().forEach(LockEntry::close);
		detachIfIdle();
	}

	// --- engine internals, called by DefaultZkLock and DefaultZkLease ---

	@Nullable LockEntry entry(String key) {
		return this.entries.get(key);
	}

	void acquireOrThrow(String key, String path, Object who, Duration wait) {
		Interrupts interrupts = Interrupts.interruptible();
		Deadline deadline = Deadline.after(wait);
		try {
			acquire(key, path, who, deadline, !wait.isZero(), interrupts);
		}
		catch (AcquireFailure ex) {
			throw ex.toException(key, path, deadline.elapsed());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AcquireFailure(LockAcquisitionException.Reason.INTERRUPTED, "", ex).toException(key, path,
					deadline.elapsed());
		}
	}

	/**
	 * Who holds a key in this JVM, as far as it can be told: a thread by name, or a lease.
	 */
	private static String localHolder(LockEntry entry) {
		Thread owner = entry.ownerThread();
		if (owner != null) {
			return "holder thread '" + owner.getName() + "'";
		}
		return entry.isHeld() ? "held by a lease of this JVM" : "";
	}

	/**
	 * Acquire the key for {@code who}: the local slot first, then, unless a lease came with it,
	 * a node in ZooKeeper. With {@code waitForOthers} false, one attempt is made: no wait for
	 * another holder, but ZooKeeper round trips get up to the connection timeout.
	 */
	void acquire(String key, String path, Object who, Deadline deadline, boolean waitForOthers, Interrupts interrupts)
			throws AcquireFailure, InterruptedException {
		checkOpen();
		LockEntry entry = retain(key, path);
		boolean acquired = false;
		try {
			if (this.closed) {
				// Closed between the check and the retain: close() may not have seen this entry
				throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
			}
			LockEntry.Slot slot = entry.acquireSlot(who, waitForOthers ? deadline : Deadline.after(0), interrupts);
			switch (slot) {
				case TIMED_OUT -> throw new AcquireFailure(LockAcquisitionException.Reason.HELD_LOCALLY,
						localHolder(entry), null);
				case CLOSED -> throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
				case HANDED_OFF -> {
					acquired = true;
					return;
				}
				case GRANTED -> {
				}
			}
			entry.acquiring(Thread.currentThread());
			try {
				Deadline zkDeadline = waitForOthers ? deadline
						: Deadline.after(TimeUnit.MILLISECONDS.toNanos(this.ops.connectionTimeoutMs()));
				while (!acquired) {
					Lease lease = new ZkParticipant(this.ops, this.reaper, this.watches, entry, zkDeadline,
							waitForOthers, interrupts)
						.acquire();
					acquired = this.sessions.publish(entry, who, lease);
					if (!acquired) {
						// Its session ended between the reply and now: never hand out such a lease
						this.reaper.delete(lease.nodePath());
					}
				}
			}
			finally {
				entry.acquiring(null);
				if (!acquired) {
					entry.abandonSlot(who);
				}
			}
		}
		finally {
			interrupts.restore();
			if (!acquired) {
				release(entry);
			}
		}
	}

	/**
	 * Release the slot held by {@code who}, then apply the lost-lock policy.
	 */
	void release(LockEntry entry, Object who) {
		LockEntry.Release release = entry.releaseSlot(who, this.options.maxLocalHandoffs(), this.ops.sessionId(),
				this.reaper);
		try {
			if (release.handedOff()) {
				this.listeners.tell((listener) -> listener.handedOff(entry.key()),
						"lock '" + entry.key() + "' was handed off");
			}
			if (release.delete() != null && this.ops.isConnected()) {
				awaitQuietly(release);
			}
		}
		finally {
			release(entry);
		}
		Lease lease = release.lease();
		if (lease != null && lease.state() == LeaseState.LOST) {
			LockLostException lost = new LockLostException(entry.key(), entry.path(), lease.fencingToken());
			if (this.options.lostLockPolicy() == LostLockPolicy.THROW) {
				throw lost;
			}
			logger.warn(lost.getMessage());
		}
	}

	private void awaitQuietly(LockEntry.Release release) {
		try {
			release.delete().get(this.options.releaseTimeout().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// The reaper keeps trying; the node is ephemeral in any case
		}
	}

	/**
	 * Find or create the key's entry and count us in, without locking the map: many threads
	 * arriving for one key must not queue on a map bin before they queue on the lock.
	 */
	private LockEntry retain(String key, String path) {
		while (true) {
			LockEntry entry = this.entries.get(key);
			if (entry == null) {
				LockEntry created = new LockEntry(key, path);
				entry = this.entries.putIfAbsent(key, created);
				if (entry == null) {
					return created;
				}
			}
			if (entry.tryRetain()) {
				return entry;
			}
			// Retired by its last user a moment ago: help remove it and start over
			this.entries.remove(key, entry);
		}
	}

	/**
	 * Count us out; the last one out of an idle entry removes it. A held entry always counts its
	 * holder, so it is never removed.
	 */
	private void release(LockEntry entry) {
		if (entry.releaseAndRetire()) {
			this.entries.remove(entry.key(), entry);
			if (this.closed) {
				detachIfIdle();
			}
		}
	}

	private void checkOpen() {
		if (this.closed) {
			throw new IllegalStateException("ZkLockRegistry is closed");
		}
	}

	/**
	 * Let go of the client once closed and no lock is left: the last lease has been released.
	 */
	private void detachIfIdle() {
		if (this.closed && this.entries.isEmpty() && this.detached.compareAndSet(false, true)) {
			this.sessions.detach();
			this.reaper.close();
		}
	}

	/**
	 * The child watch fired on a lock path: another participant may have joined the queue
	 * behind the node this JVM holds.
	 */
	private void childrenChanged(String serverPath) {
		LockEntry entry = this.entries.get(ZKPaths.getNodeFromPath(serverPath));
		if (entry != null && this.ops.serverPath(entry.path()).equals(serverPath)) {
			entry.noteRemoteWaiter();
		}
	}

	private static byte[] participantData() {
		// "pid@host": lets anyone reading the lock path see which process each node belongs to
		return ManagementFactory.getRuntimeMXBean().getName().getBytes(StandardCharsets.UTF_8);
	}

}
