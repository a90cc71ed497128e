package dev.zklock.core.registry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockPaths;
import dev.zklock.core.Participant;
import dev.zklock.core.RevocationRefusedException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.ZkReadWriteLock;
import dev.zklock.core.ZkSemaphore;
import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Futures;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.NodeNames;
import dev.zklock.core.internal.Revocations;
import dev.zklock.core.internal.TableEntry;
import dev.zklock.core.internal.ZkOps;
import dev.zklock.core.internal.leader.DefaultLeaderCandidate;
import dev.zklock.core.internal.mutex.DefaultZkLease;
import dev.zklock.core.internal.mutex.DefaultZkLock;
import dev.zklock.core.internal.mutex.MultiKeyLock;
import dev.zklock.core.internal.mutex.MutexEngine;
import dev.zklock.core.internal.mutex.MutexEntry;
import dev.zklock.core.internal.readwrite.ReadWriteEngine;
import dev.zklock.core.internal.readwrite.ReadWriteEntry;
import dev.zklock.core.internal.semaphore.SemaphoreEngine;
import dev.zklock.core.internal.view.ClusterReader;
import dev.zklock.core.internal.view.InstanceReporter;
import dev.zklock.core.view.ClusterView;
import dev.zklock.core.view.ViewOptions;
import dev.zklock.core.view.ViewRequest;
import dev.zklock.core.view.ViewTooLargeException;

/**
 * The entry point of the engine: hands out {@link ZkLock locks} and {@link ZkLease
 * leases} for keys, all backed by one {@link CuratorFramework} client that the caller
 * owns and starts.
 *
 * <p>
 * The lock for key {@code K} lives at {@code <rootPath>/K}. Inside one JVM, threads that
 * want the same key queue locally, first come first served; only the head of that queue
 * has a node in ZooKeeper, so a lock path has one child per JVM, whatever the number of
 * threads. When the holder releases and another local thread waits, the node passes to
 * that thread with no ZooKeeper round trip, unless another JVM is waiting and the node
 * has already been passed on {@link ZkLockOptions#maxLocalHandoffs()} times since; then
 * it is deleted and the remote waiter goes first.
 *
 * <p>
 * A key leaves the registry's memory as soon as nobody holds or waits for it. Thread
 * safe.
 *
 * @author zk-lock
 */
public class ZkLockRegistry implements AutoCloseable {

	private static final String LISTING = "listing the participants of";

	private final CuratorFramework client;

	private final ZkLockOptions options;

	private final Engine engine;

	private final MutexEngine mutex;

	private final ReadWriteEngine readWrite;

	private final SemaphoreEngine semaphores;

	/** The leader groups' locks: their nodes never linger, so every term has its own. */
	private final MutexEngine leaders;

	/** This registry's report publishers, closed with it. */
	private final List<InstanceReporter> reporters = new CopyOnWriteArrayList<>();

	/** This registry's candidates, one per group path. */
	private final Map<String, DefaultLeaderCandidate> candidates = new ConcurrentHashMap<>();

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
	 * @throws IllegalArgumentException if the client's namespace puts the locks inside
	 * ZooKeeper's reserved tree {@code /zookeeper}
	 */
	public ZkLockRegistry(CuratorFramework client, ZkLockOptions options) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.options = Objects.requireNonNull(options, "options must not be null");
		String namespace = client.getNamespace();
		if (namespace != null && !namespace.isEmpty() && LockPaths.isReserved("/" + namespace + options.rootPath())) {
			throw new IllegalArgumentException(
					"The Curator namespace '" + LockPaths.printable(namespace) + "' and the lock root path '"
							+ options.rootPath() + "' would put the locks at /" + LockPaths.printable(namespace)
							+ options.rootPath() + ", inside ZooKeeper's reserved tree " + LockPaths.RESERVED_PATH);
		}
		this.engine = new Engine(client, options);
		this.mutex = new MutexEngine(this.engine);
		this.readWrite = new ReadWriteEngine(this.engine);
		this.semaphores = new SemaphoreEngine(this.engine, this.mutex);
		this.leaders = new MutexEngine(this.engine, false);
	}

	/**
	 * Return a lock for a key. Cheap: the handle keeps nothing in memory while unused.
	 * @param key the key, one ZooKeeper path segment (see {@link LockPaths#validateKey})
	 * @return the lock
	 * @throws IllegalArgumentException if the key cannot be a lock key
	 */
	public ZkLock obtain(String key) {
		return new DefaultZkLock(this.mutex, key, lockPath(key));
	}

	/**
	 * Return a read/write lock for a key, wire-compatible with Curator's
	 * {@code InterProcessReadWriteLock} on the same path: any number of readers, across
	 * JVMs, hold the read side together; a writer holds the write side alone. Threads of
	 * this JVM that read share one read node. Each side is a reentrant {@link ZkLock}
	 * held by a thread; a writer may also take the read side (downgrade), a reader may
	 * not take the write side (upgrade), which fails at once with
	 * {@link IllegalStateException}, since two readers upgrading would wait for each
	 * other forever. A key is either a mutex or a read/write lock: the two recipes do not
	 * exclude each other.
	 * @param key the key, one ZooKeeper path segment (see {@link LockPaths#validateKey})
	 * @return the read/write lock
	 * @throws IllegalArgumentException if the key cannot be a lock key
	 */
	public ZkReadWriteLock obtainReadWrite(String key) {
		return this.readWrite.obtain(key, lockPath(key));
	}

	/**
	 * Return a counting semaphore for a key, wire-compatible with Curator's
	 * {@code InterProcessSemaphoreV2} on the same path: at most {@code permits} leases at
	 * once, across JVMs and Curator processes that use the same number.
	 * @param key the key, one ZooKeeper path segment (see {@link LockPaths#validateKey})
	 * @param permits the number of permits, at least 1
	 * @return the semaphore
	 * @throws IllegalArgumentException if the key cannot be a lock key or permits is
	 * below 1
	 */
	public ZkSemaphore obtainSemaphore(String key, int permits) {
		return this.semaphores.obtain(key, lockPath(key), permits);
	}

	/**
	 * Return one lock for several keys: taken in the keys' natural order (the same in
	 * every JVM, so that callers locking overlapping sets cannot deadlock one another),
	 * under one deadline, all or nothing, and released in reverse order. Duplicate keys
	 * count once; each key is reentrant on its own. A lock on several keys has no single
	 * fencing token: read each key's through {@link #obtain}.
	 * @param keys the keys, at least one
	 * @return the lock; for a single distinct key, the same as {@link #obtain}
	 * @throws IllegalArgumentException if there is no key, a key cannot be a lock key, or
	 * there are more distinct keys than {@link ZkLockOptions#maxKeysPerCall()}
	 */
	public ZkLock obtainAll(Collection<String> keys) {
		SortedSet<String> sorted = sortedKeys(keys);
		if (sorted.size() == 1) {
			return obtain(sorted.first());
		}
		return new MultiKeyLock(this.mutex, sorted.stream().map(this::obtain).toList());
	}

	/**
	 * Return one read/write lock for several keys: each side takes that side of every
	 * key's read/write lock in the keys' natural order (the same in every JVM), under one
	 * deadline, all or nothing, and releases them in reverse order, as {@link #obtainAll}
	 * does for exclusive locks. Neither side can be handed to a lease.
	 * @param keys the keys, at least one
	 * @return the lock; for a single distinct key, the same as {@link #obtainReadWrite}
	 * @throws IllegalArgumentException if there is no key, a key cannot be a lock key, or
	 * there are more distinct keys than {@link ZkLockOptions#maxKeysPerCall()}
	 */
	public ZkReadWriteLock obtainAllReadWrite(Collection<String> keys) {
		SortedSet<String> sorted = sortedKeys(keys);
		if (sorted.size() == 1) {
			return obtainReadWrite(sorted.first());
		}
		List<ZkReadWriteLock> locks = sorted.stream().map(this::obtainReadWrite).toList();
		ZkLock read = new MultiKeyLock(null, locks.stream().map(ZkReadWriteLock::readLock).toList());
		ZkLock write = new MultiKeyLock(null, locks.stream().map(ZkReadWriteLock::writeLock).toList());
		return new ZkReadWriteLock() {

			@Override
			public ZkLock readLock() {
				return read;
			}

			@Override
			public ZkLock writeLock() {
				return write;
			}

			@Override
			public String key() {
				return read.key();
			}

			@Override
			public String path() {
				return read.path();
			}

		};
	}

	private SortedSet<String> sortedKeys(Collection<String> keys) {
		Objects.requireNonNull(keys, "keys must not be null");
		SortedSet<String> sorted = new TreeSet<>();
		for (String key : keys) {
			lockPath(key);
			sorted.add(key);
		}
		if (sorted.isEmpty()) {
			throw new IllegalArgumentException("At least one lock key is needed, but none was given");
		}
		int max = this.options.maxKeysPerCall();
		if (sorted.size() > max) {
			throw new IllegalArgumentException("A lock on several keys takes at most " + max
					+ " distinct keys (maxKeysPerCall), but " + sorted.size() + " were given, from '" + sorted.first()
					+ "' to '" + sorted.last() + "': lock fewer keys at once, or a coarser key");
		}
		return sorted;
	}

	/**
	 * Acquire a lease on a key: a hold that any thread may release, for work that ends on
	 * another thread than it began.
	 * @param key the key
	 * @param waitAtMost the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @return the lease, held
	 * @throws LockAcquisitionException if not acquired within the wait
	 */
	public ZkLease acquireLease(String key, Duration waitAtMost) {
		String path = lockPath(key);
		DefaultZkLease lease = new DefaultZkLease(this.mutex, key, path);
		this.mutex.acquireOrThrow(key, path, Holder.handle(lease), waitAtMost);
		lease.acquired(this.mutex.entry(path));
		try {
			this.engine.tellAcquired(key, path);
		}
		catch (Error ex) {
			// A listener's own VirtualMachineError: no hold outlives the failed call
			lease.release();
			throw ex;
		}
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
	 * @param waitAtMost the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @param task the task
	 * @return the task's result
	 * @throws LockAcquisitionException if not acquired within the wait
	 * @throws Exception what the task throws
	 */
	public <T> T executeLocked(String key, Duration waitAtMost, Callable<T> task) throws Exception {
		ZkLock lock = obtain(key);
		lock.acquire(waitAtMost);
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
	 * @param waitAtMost the longest time to wait; {@link Duration#ZERO} makes one attempt
	 * @param task the task
	 * @throws LockAcquisitionException if not acquired within the wait
	 */
	public void executeLocked(String key, Duration waitAtMost, Runnable task) {
		ZkLock lock = obtain(key);
		lock.acquire(waitAtMost);
		try {
			task.run();
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Wait until ZooKeeper has confirmed the delete of every node this registry released
	 * or gave up before the call. A release returns once the delete is sent (unless
	 * {@link ZkLockOptions#releaseTimeout()} says otherwise), which is all that mutual
	 * exclusion needs: this JVM's next request is applied after the delete, and any other
	 * participant waits until it is applied. Call this where something outside the lock
	 * must see the node gone, such as a client of another session reading the lock path
	 * right after the release. Nodes kept by {@link ZkLockOptions#linger()} are deleted
	 * first: a caller that waits for the releases wants them gone.
	 * @param timeout the longest time to wait
	 * @return whether every such delete was confirmed in time; {@code false} also if one
	 * could not be made (it was logged)
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitReleased(Duration timeout) throws InterruptedException {
		this.mutex.endLingers();
		return this.engine.awaitDeletesConfirmed(timeout);
	}

	/**
	 * Register a listener for lease state changes and hand-offs. A listener that throws
	 * is logged; it cannot keep the others from being told, nor the engine from tracking
	 * its leases.
	 * @param listener the listener
	 */
	public void addListener(ZkLockListener listener) {
		this.engine.addListener(listener);
	}

	/**
	 * Remove a listener.
	 * @param listener the listener
	 */
	public void removeListener(ZkLockListener listener) {
		this.engine.removeListener(listener);
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
		for (TableEntry entry : lockEntries()) {
			result.add(entry.info());
		}
		return result;
	}

	/**
	 * The entries of the locks: not those of this registry's leader candidates, which
	 * {@link #candidates()} and {@link #groupMembers} show.
	 */
	private List<TableEntry> lockEntries() {
		List<TableEntry> locks = new ArrayList<>();
		for (TableEntry entry : this.engine.entries()) {
			if (!this.candidates.containsKey(entry.path())) {
				locks.add(entry);
			}
		}
		return locks;
	}

	/**
	 * Return how many keys this JVM holds right now.
	 * @return the number of held keys
	 */
	public int heldCount() {
		int count = 0;
		for (TableEntry entry : lockEntries()) {
			if (entry.isHeld()) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Return how many threads and leases of this JVM wait for a lock right now, in the
	 * local queue or for ZooKeeper.
	 * @return the number of waiters
	 */
	public int waitingCount() {
		int count = 0;
		for (TableEntry entry : lockEntries()) {
			count += entry.waitingCount();
		}
		return count;
	}

	/**
	 * Return the connection state last reported by Curator, and since when.
	 * @return the connection status
	 */
	public ConnectionStatus connectionStatus() {
		return this.engine.connectionStatus();
	}

	/**
	 * Return the participants queued for a key in ZooKeeper, across all JVMs, in queue
	 * order: the first holds the lock. A participant is a lock node of the exclusive or
	 * the read/write recipe, ours or Curator's: a child of the key's path named as one
	 * ({@code [_c_<uuid>-]lock-<sequence>}, {@code __READ__}, {@code __WRIT__}) and
	 * ephemeral. Nothing else under the path is read beyond its stat, or listed: a
	 * persistent node named as a lock node is nobody's lock, and the data of other nodes
	 * is not the caller's to see. A semaphore's key has none (its leases are under
	 * {@code <path>/leases}). Reads ZooKeeper: the child list, the stat of every child
	 * named as a lock node at once, then the data of the ephemeral ones at once; the
	 * whole read is bounded by the client's connection timeout, and fails at once if the
	 * client is not connected.
	 * @param key the key
	 * @return the participants, empty if none
	 * @throws IllegalArgumentException if the key cannot be a lock key; nothing is read
	 * @throws TimeoutException if ZooKeeper did not answer within the connection timeout
	 * @throws KeeperException.ConnectionLossException if the client is not connected; the
	 * message names the connection's state
	 * @throws Exception if ZooKeeper refused the read
	 */
	public List<Participant> participants(String key) throws Exception {
		String path = lockPath(key);
		List<Participant> participants = new ArrayList<>();
		for (QueuedNode queued : queued(key, path)) {
			Stat stat = queued.stat();
			participants.add(new Participant(queued.name(), NodeNames.sequenceOf(queued.name()), queued.owner(),
					stat.getCzxid(), participants.isEmpty(), stat.getEphemeralOwner()));
		}
		return participants;
	}

	/**
	 * The lock nodes queued under a path, read, in queue order: the child list, the stat
	 * of every child named as a lock node at once, then the data of the ephemeral ones at
	 * once, within one read deadline. A node released meanwhile is left out.
	 */
	private List<QueuedNode> queued(String key, String path) throws Exception {
		Deadline deadline = readDeadline();
		List<String> children;
		try {
			children = awaitRead(this.engine.listChildren(path), deadline, LISTING, key, path);
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
		Map<String, Stat> lockNodes = ephemeral(statsOfLockNamed(path, children, deadline, LISTING, key));
		List<String> queue = NodeNames.inQueueOrder(new ArrayList<>(lockNodes.keySet()));
		List<CompletableFuture<ZkOps.@Nullable NodeData>> reads = new ArrayList<>();
		for (String child : queue) {
			reads.add(this.engine.readNode(path + "/" + child));
		}
		List<QueuedNode> queued = new ArrayList<>();
		for (int i = 0; i < queue.size(); i++) {
			ZkOps.NodeData read = awaitRead(reads.get(i), deadline, LISTING, key, path);
			Stat listed = Objects.requireNonNull(lockNodes.get(queue.get(i)), "the queue is the map's keys");
			if (read == null || read.stat().getCzxid() != listed.getCzxid()) {
				// Released while we read (a node of that name since is another's): no
				// longer a participant
				continue;
			}
			queued.add(new QueuedNode(queue.get(i), new String(read.data(), StandardCharsets.UTF_8), read.stat()));
		}
		return queued;
	}

	/** A lock node as read in its queue: its name, its data and its stat. */
	private record QueuedNode(String name, String owner, Stat stat) {
	}

	/**
	 * Read the cluster view: a page of the keys under the root path, each with its
	 * holders and its queue across all JVMs (zk-lock's and plain Curator's lock nodes),
	 * what each reporting instance says of its holds and waiting calls, every reporting
	 * instance's connection state, and every leadership group under
	 * {@link ViewOptions#leadersRootPath()}. Reads ZooKeeper in a few rounds of
	 * multi-reads, whatever the number of keys: one {@code getChildren} per key (and per
	 * semaphore part), the data of the lock nodes in batches; nothing is written and no
	 * watch is left. Bounded by the client's connection timeout; fails at once if the
	 * client is not connected.
	 * @param request the page: key prefix, after which key, how many
	 * @param options where the reports and groups are, and the view's bounds
	 * @return the view
	 * @throws ViewTooLargeException if the root path (or the leaders root path) has more
	 * children than {@link ViewOptions#maxKeys()}: nothing is listed
	 * @throws IllegalArgumentException if the instances path is, contains or is inside
	 * the lock root path
	 * @throws TimeoutException if ZooKeeper did not answer within the connection timeout
	 * @throws KeeperException.ConnectionLossException if the client is not connected
	 * @throws Exception if ZooKeeper refused a read
	 */
	public ClusterView clusterView(ViewRequest request, ViewOptions options) throws Exception {
		Objects.requireNonNull(request, "request must not be null");
		checkApartFromLocks("Instances path", options.instancesPath());
		Deadline deadline = readDeadline();
		ClusterReader.Self self = new ClusterReader.Self(
				new String(this.engine.participantData(), StandardCharsets.UTF_8), this.engine.currentSession(),
				connectionStatus(), localLocks());
		return new ClusterReader(this.engine, this.options.rootPath(), options, self).read(request, deadline);
	}

	/**
	 * Publish this instance's report for the cluster view, under
	 * {@link ViewOptions#instancesPath()}, until the returned handle or the registry is
	 * closed: an ephemeral node of this session, rewritten when its holds or waiting
	 * calls change, at most every {@link ViewOptions#reportInterval()}, and at least
	 * every {@link ViewOptions#heartbeat()}. Costs one small write per change and
	 * heartbeat, none while nothing changes between heartbeats but the heartbeat itself.
	 * @param options where to publish, and how often
	 * @return the handle that stops publishing and deletes the report
	 * @throws IllegalArgumentException if the instances path is, contains or is inside
	 * the lock root path
	 */
	public AutoCloseable publishReports(ViewOptions options) {
		checkApartFromLocks("Instances path", options.instancesPath());
		InstanceReporter reporter = new InstanceReporter(this.client, this.engine, this::localLocks, options,
				new String(this.engine.participantData(), StandardCharsets.UTF_8));
		this.reporters.add(reporter);
		reporter.start();
		return () -> {
			this.reporters.remove(reporter);
			reporter.close();
		};
	}

	/**
	 * Join a leadership group: a candidate that queues at once, on its own thread, for
	 * the group's exclusive lock at {@link LeaderGroup#path()}, leads while it holds it,
	 * and leads on while the connection is only suspended ({@link OnSuspended#LEAD_ON}).
	 * @param group the group
	 * @param listener told when the candidate starts and stops leading
	 * @return the candidate, queued or queueing
	 * @throws IllegalArgumentException if the group's root path is, contains or is inside
	 * the lock root path
	 * @throws IllegalStateException if this registry already has a candidate in the
	 * group, or is closed
	 */
	public LeaderCandidate joinLeadership(LeaderGroup group, LeadershipListener listener) {
		return joinLeadership(group, OnSuspended.LEAD_ON, listener);
	}

	/**
	 * Join a leadership group (see
	 * {@link #joinLeadership(LeaderGroup, LeadershipListener)}), saying what the leader
	 * does while its connection is suspended.
	 * @param group the group
	 * @param onSuspended lead on until the session is lost, or step down at once
	 * @param listener told when the candidate starts and stops leading
	 * @return the candidate, queued or queueing
	 * @throws IllegalArgumentException if the group's root path is, contains or is inside
	 * the lock root path
	 * @throws IllegalStateException if this registry already has a candidate in the group
	 * (one per group, so that each term has a node, and an epoch, of its own), or is
	 * closed
	 */
	public LeaderCandidate joinLeadership(LeaderGroup group, OnSuspended onSuspended, LeadershipListener listener) {
		Objects.requireNonNull(group, "group must not be null");
		Objects.requireNonNull(onSuspended, "onSuspended must not be null");
		Objects.requireNonNull(listener, "listener must not be null");
		checkApartFromLocks(group);
		String path = group.path();
		DefaultLeaderCandidate[] joined = new DefaultLeaderCandidate[1];
		DefaultLeaderCandidate candidate = new DefaultLeaderCandidate(this.engine, this.leaders, group, onSuspended,
				listener, () -> this.candidates.remove(path, joined[0]));
		joined[0] = candidate;
		if (this.candidates.putIfAbsent(path, candidate) != null) {
			throw new IllegalStateException("This registry already has a candidate in leader group '" + group.name()
					+ "' (" + path + "): close it first; one candidate per group and registry");
		}
		if (this.engine.isClosed()) {
			this.candidates.remove(path, candidate);
			throw new IllegalStateException("Lock registry is closed: cannot join leader group '" + group.name() + "'");
		}
		candidate.start();
		return candidate;
	}

	/**
	 * Return this registry's candidates, one per group joined and not yet left.
	 * @return the candidates
	 */
	public List<LeaderCandidate> candidates() {
		return List.copyOf(this.candidates.values());
	}

	/**
	 * Return the members of a leadership group across all JVMs, in queue order: the first
	 * leads. Read as {@link #participants(String)} reads a key, so every instance reads
	 * the same.
	 * @param group the group
	 * @return the members, empty if none
	 * @throws TimeoutException if ZooKeeper did not answer within the connection timeout
	 * @throws KeeperException.ConnectionLossException if the client is not connected
	 * @throws Exception if ZooKeeper refused the read
	 */
	public List<GroupMember> groupMembers(LeaderGroup group) throws Exception {
		List<GroupMember> members = new ArrayList<>();
		for (QueuedNode queued : queued(group.name(), group.path())) {
			Stat stat = queued.stat();
			Instant joined = Instant.ofEpochMilli(stat.getCtime());
			boolean leader = members.isEmpty();
			// A zk-lock leader writes its data again when it comes to lead (version 1)
			Instant since = (leader && stat.getVersion() > 0) ? Instant.ofEpochMilli(stat.getMtime()) : joined;
			members.add(new GroupMember(queued.name(), queued.owner(), stat.getCzxid(), stat.getEphemeralOwner(),
					leader, joined, since));
		}
		return members;
	}

	/**
	 * Ask the leader of a group, in any JVM, to step down, as
	 * {@link #requestRevocation(String)} asks a key's holder: a zk-lock leader hands over
	 * ({@link dev.zklock.core.leader.TermEnd#REVOKED}) and queues again.
	 * @param group the group
	 * @return the nodes asked
	 * @throws RevocationRefusedException if nobody leads the group
	 * @throws Exception as {@link #requestRevocation(String)}
	 */
	public List<String> requestRevocation(LeaderGroup group) throws Exception {
		return requestRevocationAt(group.name(), group.path());
	}

	private void checkApartFromLocks(LeaderGroup group) {
		checkApartFromLocks("Leader group root path", group.rootPath());
	}

	/**
	 * Check that a path of the engine's own (a leader group root, the reports) is apart
	 * from the lock root path: neither inside the other, so that no key ever meets it.
	 */
	private void checkApartFromLocks(String what, String path) {
		String locks = this.options.rootPath();
		if (path.equals(locks) || path.startsWith(locks + "/") || locks.startsWith(path + "/")) {
			throw new IllegalArgumentException(what + " '" + path + "' must be apart from the lock root path '" + locks
					+ "': a key of the same name would meet it");
		}
	}

	/**
	 * Ask whoever holds a key's lock, in any JVM, to give it up: write Curator's
	 * revocation request ({@code __REVOKE__}, as {@code Revoker.attemptRevoke} does) into
	 * every node that holds it: the mutex holder's, the writer's, or every reader's. A
	 * holder that asked to be told ({@link ZkLock#onRevocationRequested}, Curator's
	 * {@code makeRevocable}) is told; the others are not, and nothing is taken from
	 * anyone: it is a request. A node that an engine keeps with nobody holding it (a
	 * {@linkplain ZkLockOptions#linger() linger}) goes at once, and a node asked for is
	 * not kept or reused after its hold.
	 * <p>
	 * Only lock nodes are asked: the ephemeral children of the key's path named as the
	 * exclusive lock's and the read/write lock's nodes are (Curator's {@code lock-},
	 * {@code __READ__} and {@code __WRIT__}, with or without the protection prefix). Each
	 * is written only at the version its stat was read with, so that a node deleted and
	 * replaced in between, by anyone, is not written. Anything else under the path, such
	 * as a semaphore's {@code leases} and {@code locks}, or a persistent node named as a
	 * lock node, is never written, nor its data read: semaphore permits are not
	 * revocable, and a persistent node is nobody's lock. A refusal does not name the
	 * other nodes.
	 * @param key the key
	 * @return the nodes asked, never empty
	 * @throws IllegalArgumentException if the key cannot be a lock key; nothing is read
	 * or written
	 * @throws RevocationRefusedException if nobody was asked and nothing was written: the
	 * path has no lock node (nobody holds the lock, or it is not a revocable lock), or
	 * every holder released its node while it was asked
	 * @throws TimeoutException if ZooKeeper did not answer within the connection timeout
	 * @throws KeeperException.ConnectionLossException if the client is not connected
	 * @throws Exception if ZooKeeper refused
	 */
	public List<String> requestRevocation(String key) throws Exception {
		return requestRevocationAt(key, lockPath(key));
	}

	private List<String> requestRevocationAt(String key, String path) throws Exception {
		String what = "requesting revocation of";
		Deadline deadline = readDeadline();
		List<String> children;
		try {
			children = awaitRead(this.engine.listChildren(path), deadline, what, key, path);
		}
		catch (KeeperException.NoNodeException ex) {
			throw new RevocationRefusedException(key, path, RevocationRefusedException.Reason.NOT_HELD, "");
		}
		Map<String, Stat> named = statsOfLockNamed(path, children, deadline, what, key);
		Map<String, Stat> locks = ephemeral(named);
		if (locks.isEmpty()) {
			// Nodes named as lock nodes but gone since the list were released: only the
			// ones left, none of them a lock node, are worth a word
			List<String> left = children.stream()
				.filter((child) -> !NodeNames.isLockNodeName(child) || named.containsKey(child))
				.toList();
			if (left.isEmpty()) {
				throw new RevocationRefusedException(key, path, RevocationRefusedException.Reason.NOT_HELD, "");
			}
			throw new RevocationRefusedException(key, path, RevocationRefusedException.Reason.NOT_A_LOCK,
					Revocations.describeOthers(left));
		}
		List<String> asked = new ArrayList<>();
		for (String holder : Revocations.holders(new ArrayList<>(locks.keySet()))) {
			String node = path + "/" + holder;
			int version = Objects.requireNonNull(locks.get(holder), "the holders are among the map's keys")
				.getVersion();
			if (awaitRead(this.engine.requestRevocation(node, version), deadline, what, key, path)) {
				asked.add(node);
			}
		}
		if (asked.isEmpty()) {
			throw new RevocationRefusedException(key, path, RevocationRefusedException.Reason.NOT_HELD,
					"its holders released it while they were asked");
		}
		return asked;
	}

	/**
	 * The children named as lock nodes ({@link NodeNames#isLockNodeName}), with the stat
	 * each was read with, in the order given; only their stats are read, all at once, no
	 * data. A node gone since the list is left out.
	 */
	private Map<String, Stat> statsOfLockNamed(String path, List<String> children, Deadline deadline, String what,
			String key) throws Exception {
		List<String> named = children.stream().filter(NodeNames::isLockNodeName).toList();
		List<CompletableFuture<@Nullable Stat>> reads = new ArrayList<>();
		for (String child : named) {
			reads.add(this.engine.statNode(path + "/" + child));
		}
		Map<String, Stat> stats = new LinkedHashMap<>();
		for (int i = 0; i < named.size(); i++) {
			Stat stat = awaitRead(reads.get(i), deadline, what, key, path);
			if (stat != null) {
				stats.put(named.get(i), stat);
			}
		}
		return stats;
	}

	/**
	 * The lock nodes among nodes named as such: the ephemeral ones. A persistent node is
	 * nobody's lock, whatever its name.
	 */
	private static Map<String, Stat> ephemeral(Map<String, Stat> named) {
		Map<String, Stat> ephemeral = new LinkedHashMap<>();
		named.forEach((name, stat) -> {
			if (stat.getEphemeralOwner() != 0) {
				ephemeral.put(name, stat);
			}
		});
		return ephemeral;
	}

	/**
	 * The bound of a read nobody gave a wait for: the client's connection timeout, as for
	 * the round trips of a single attempt. No request is sent while the client is not
	 * connected: the read fails at once, as a single attempt does.
	 */
	private Deadline readDeadline() throws KeeperException.ConnectionLossException {
		String notConnected = this.engine.whyNotConnected();
		if (notConnected != null) {
			throw new NotConnectedException(notConnected);
		}
		return this.engine.singleAttemptDeadline();
	}

	/**
	 * ZooKeeper's exception for a request made without a connection, with a message that
	 * names the connection's state.
	 */
	private static final class NotConnectedException extends KeeperException.ConnectionLossException {

		private static final long serialVersionUID = 1L;

		private final String state;

		NotConnectedException(String state) {
			this.state = state;
		}

		@Override
		public String getMessage() {
			return super.getMessage() + ": " + this.state;
		}

	}

	private <T extends @Nullable Object> T awaitRead(CompletableFuture<T> reply, Deadline deadline, String what,
			String key, String path) throws Exception {
		try {
			return Futures.await(reply, deadline.remainingNanos());
		}
		catch (TimeoutException ex) {
			throw new TimeoutException(
					"ZooKeeper did not answer within " + this.engine.connectionTimeoutMs() + " ms when " + what
							+ " lock '" + key + "' (" + path + "), connect string " + this.engine.connectString());
		}
	}

	/**
	 * Return how many keys the registry keeps in memory: those held or waited for.
	 * @return the number of entries
	 */
	public int size() {
		return this.engine.entryCount();
	}

	/**
	 * Stop handing out locks: {@link #obtain} and its kin still return handles, but every
	 * later acquisition through them ({@code lock}, {@code tryLock}, {@code acquire}, a
	 * semaphore's permits) and {@link #acquireLease} throw {@link IllegalStateException},
	 * except a thread's reentry into a hold it kept; threads still waiting for a lock of
	 * this registry fail with {@link LockAcquisitionException.Reason#CLOSED}. Locks held
	 * at this moment stay held until released, and are tracked as before: their lease
	 * state follows the session, and their nodes are deleted when released, retried on
	 * reconnect if need be. The registry lets go of the client once the last of them is
	 * released; the client itself is not closed. Every candidate leaves its leader group:
	 * a leader steps down ({@link dev.zklock.core.leader.TermEnd#CLOSED}) on its own
	 * thread, without this method waiting for it.
	 */
	@Override
	public void close() {
		this.reporters.forEach(InstanceReporter::close);
		// A leader steps down on its own thread; a candidate that waits stops waiting
		for (DefaultLeaderCandidate candidate : this.candidates.values()) {
			candidate.leave();
		}
		this.engine.close();
	}

	/**
	 * The mutex entry of a key, for tests (through their {@code RegistryAccess}).
	 */
	@Nullable MutexEntry entry(String key) {
		return this.mutex.entry(lockPath(key));
	}

	/**
	 * The read/write entry of a key, for tests (through their {@code RegistryAccess}).
	 */
	@Nullable ReadWriteEntry readWriteEntry(String key) {
		return this.readWrite.entry(lockPath(key));
	}

}
