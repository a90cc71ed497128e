package dev.zklock.core.internal.view;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;
import dev.zklock.core.LockPaths;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Futures;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.NodeNames;
import dev.zklock.core.internal.ZkOps;
import dev.zklock.core.view.ClusterView;
import dev.zklock.core.view.GroupView;
import dev.zklock.core.view.InstanceView;
import dev.zklock.core.view.KeyView;
import dev.zklock.core.view.NodeView;
import dev.zklock.core.view.ViewOptions;
import dev.zklock.core.view.ViewRequest;
import dev.zklock.core.view.ViewTooLargeException;

/**
 * Reads one {@link ClusterView}: the lock nodes of a page of keys and of every leader
 * group, and the instances' reports, in a few rounds of ZooKeeper multi-reads, each round
 * sent at once in batches and waited for together: the stats of the root paths (to refuse
 * a root path too large to list), their children, the reports and the keys' stats (to
 * size the next batches), the keys' children, a semaphore's leases and waiters, and the
 * data of every child named as a lock node. Only nodes named by a lock recipe and
 * ephemeral are shown; nothing else under a key is read beyond its name. The whole read
 * is bounded by one deadline.
 */
public final class ClusterReader {

	/** Ops of one multi-read, at most. */
	private static final int BATCH = 500;

	/** Children listed by one multi-read, at most: about 500 KB of names. */
	private static final int CHILDREN_PER_BATCH = 10_000;

	private static final String SEMAPHORE_LOCKS = "locks";

	/** A semaphore's lease: {@code [_c_<uuid>-]lease-<sequence>}. */
	private static final Pattern LEASE_NODE = Pattern
		.compile("(_c_[0-9a-fA-F-]{36}-)?" + Pattern.quote(LockDriver.CURATOR_PERMIT_NODE_PREFIX) + "[0-9]+");

	private static final int MAX_OWNER_LENGTH = 256;

	private final Engine engine;

	private final String rootPath;

	private final ViewOptions options;

	private final Self self;

	/**
	 * This instance, as it knows itself now.
	 *
	 * @param participantId its participant id
	 * @param sessionId its session, 0 if none
	 * @param status its connection status
	 * @param locals its keys
	 */
	public record Self(String participantId, long sessionId, ConnectionStatus status, List<LocalLockInfo> locals) {
	}

	public ClusterReader(Engine engine, String rootPath, ViewOptions options, Self self) {
		this.engine = engine;
		this.rootPath = rootPath;
		this.options = options;
		this.self = self;
	}

	/**
	 * Read the view.
	 * @throws ViewTooLargeException if a root path has more children than the view lists
	 * @throws TimeoutException if ZooKeeper did not answer before the deadline
	 */
	public ClusterView read(ViewRequest request, Deadline deadline) throws Exception {
		Instant readAt = Instant.now();
		long started = System.nanoTime();
		String leadersRoot = this.options.leadersRootPath();
		List<String> roots = new ArrayList<>(List.of(this.rootPath, this.options.instancesPath()));
		if (leadersRoot != null) {
			roots.add(leadersRoot);
		}
		List<@Nullable Stat> rootStats = stats(roots, deadline);
		int keysUnderRoot = checkListable("Lock root path", this.rootPath, rootStats.get(0));
		if (leadersRoot != null) {
			checkListable("Leaders root path", leadersRoot, rootStats.get(2));
		}
		List<String> listedRoots = new ArrayList<>();
		for (int i = 0; i < roots.size(); i++) {
			Stat stat = rootStats.get(i);
			// Reports beyond the bound are not read: the view then shows no instances
			if (stat != null && stat.getNumChildren() > 0 && stat.getNumChildren() <= this.options.maxKeys()) {
				listedRoots.add(roots.get(i));
			}
		}
		Map<String, List<String>> rootChildren = children(listedRoots, Map.of(), deadline);

		Reports reports = readReports(rootChildren.getOrDefault(this.options.instancesPath(), List.of()), deadline);

		TreeSet<String> keys = new TreeSet<>();
		for (String key : rootChildren.getOrDefault(this.rootPath, List.of())) {
			if (onPage(key, request)) {
				keys.add(key);
			}
		}
		for (String key : reports.keysInDoubt()) {
			if (onPage(key, request)) {
				keys.add(key);
			}
		}
		List<String> page = new ArrayList<>();
		String nextAfter = null;
		for (String key : keys) {
			if (page.size() == request.limit()) {
				nextAfter = page.get(page.size() - 1);
				break;
			}
			page.add(key);
		}
		List<String> groups = (leadersRoot != null)
				? rootChildren.getOrDefault(leadersRoot, List.of()).stream().sorted().toList() : List.of();

		List<String> paths = new ArrayList<>();
		page.forEach((key) -> paths.add(ZKPaths.makePath(this.rootPath, key)));
		groups.forEach((group) -> paths.add(ZKPaths.makePath(String.valueOf(leadersRoot), group)));
		Map<String, Queue> queues = readQueues(paths, deadline);

		List<KeyView> keyViews = new ArrayList<>();
		for (String key : page) {
			String path = ZKPaths.makePath(this.rootPath, key);
			KeyView view = keyView(key, path, queues.getOrDefault(path, Queue.EMPTY), reports, readAt, false);
			if (!view.holders().isEmpty() || !view.waiters().isEmpty() || !view.lost().isEmpty()
					|| view.unlisted() > 0) {
				keyViews.add(view);
			}
		}
		List<GroupView> groupViews = new ArrayList<>();
		for (String group : groups) {
			String path = ZKPaths.makePath(String.valueOf(leadersRoot), group);
			KeyView members = keyView(group, path, queues.getOrDefault(path, Queue.EMPTY), reports, readAt, true);
			List<NodeView> all = new ArrayList<>(members.holders());
			all.addAll(members.waiters());
			if (!all.isEmpty()) {
				groupViews.add(new GroupView(group, path, all));
			}
		}
		return new ClusterView(this.rootPath, readAt, Duration.ofNanos(System.nanoTime() - started), keysUnderRoot,
				keyViews, nextAfter, reports.instances(this.self), groupViews);
	}

	private static boolean onPage(String key, ViewRequest request) {
		return key.startsWith(request.prefix()) && (request.after() == null || key.compareTo(request.after()) > 0);
	}

	private int checkListable(String what, String path, @Nullable Stat stat) {
		int children = (stat != null) ? stat.getNumChildren() : 0;
		if (children > this.options.maxKeys()) {
			throw new ViewTooLargeException(what + " " + path + " has " + children
					+ " children, more than the view lists (" + this.options.maxKeys()
					+ "): nothing was listed, since ZooKeeper cannot list part of a node's "
					+ "children and the whole list could exceed what one reply may carry; read one key's participants "
					+ "instead, or raise the bound");
		}
		return children;
	}

	// ---- reports

	private Reports readReports(List<String> names, Deadline deadline) throws Exception {
		// One request per report, pipelined, not a multi-read: a report may be large, and
		// a reply beyond the client's packet limit would drop its connection
		List<CompletableFuture<ZkOps.@Nullable NodeData>> reads = new ArrayList<>();
		for (String name : names) {
			reads.add(this.engine.readNode(ZKPaths.makePath(this.options.instancesPath(), name)));
		}
		List<Reported> reported = new ArrayList<>();
		for (CompletableFuture<ZkOps.@Nullable NodeData> read : reads) {
			ZkOps.NodeData node = awaitNode(read, deadline);
			if (node == null || node.stat().getEphemeralOwner() == 0
					|| node.stat().getEphemeralOwner() == this.self.sessionId()) {
				continue;
			}
			InstanceReport report = InstanceReport.parse(node.data());
			if (report != null) {
				reported.add(new Reported(report, node.stat().getEphemeralOwner(), node.stat().getMtime()));
			}
		}
		return new Reports(reported, this.self, this.options.heartbeat());
	}

	/**
	 * A report as read: the report, the session that owns its node, and when it was
	 * written.
	 */
	private record Reported(InstanceReport report, long sessionId, long writtenAt) {
	}

	/**
	 * Every instance's keys, this one's as it knows them now, indexed by lock node path.
	 */
	private static final class Reports {

		private final List<Reported> reported;

		private final Map<String, Entry> byNode = new HashMap<>();

		private final Map<String, List<Entry>> byKeyPath = new HashMap<>();

		private final long newest;

		private final Duration heartbeat;

		Reports(List<Reported> reported, Self self, Duration heartbeat) {
			this.reported = reported;
			this.heartbeat = heartbeat;
			this.newest = reported.stream().mapToLong(Reported::writtenAt).max().orElse(0);
			for (Reported one : reported) {
				boolean silent = isSilent(one);
				one.report()
					.keys()
					.forEach((info) -> add(new Entry(info, one.report().participantId(), one.sessionId(),
							one.report().state(), silent)));
			}
			self.locals()
				.forEach((info) -> add(
						new Entry(info, self.participantId(), self.sessionId(), self.status().state(), false)));
		}

		private void add(Entry entry) {
			String node = entry.info().nodePath();
			if (node != null) {
				this.byNode.put(node, entry);
			}
			this.byKeyPath.computeIfAbsent(entry.info().path(), (path) -> new ArrayList<>()).add(entry);
		}

		boolean isSilent(Reported one) {
			return this.newest - one.writtenAt() > 3 * this.heartbeat.toMillis();
		}

		/**
		 * The keys of holds reported in doubt: to list them also when ZooKeeper shows no
		 * node.
		 */
		List<String> keysInDoubt() {
			List<String> keys = new ArrayList<>();
			this.byKeyPath.values().forEach((entries) -> entries.forEach((entry) -> {
				LeaseState state = entry.info().leaseState();
				if (state == LeaseState.LOST || state == LeaseState.UNCERTAIN) {
					keys.add(entry.info().key());
				}
			}));
			return keys;
		}

		@Nullable Entry forNode(String nodePath) {
			return this.byNode.get(nodePath);
		}

		List<Entry> forKeyPath(String path) {
			return this.byKeyPath.getOrDefault(path, List.of());
		}

		List<InstanceView> instances(Self self) {
			List<InstanceView> instances = new ArrayList<>();
			int selfHolds = self.locals().stream().mapToInt(LocalLockInfo::holds).sum();
			int selfWaiting = self.locals().stream().mapToInt(LocalLockInfo::waiters).sum();
			instances.add(new InstanceView(self.participantId(), hostOf(self.participantId()), self.sessionId(),
					self.status().state(), self.status().since(), Instant.now(), true, false, selfHolds, selfWaiting));
			this.reported.stream()
				.sorted(Comparator.comparing((Reported one) -> one.report().participantId())
					.thenComparingLong(Reported::sessionId))
				.forEach((one) -> instances.add(new InstanceView(one.report().participantId(),
						hostOf(one.report().participantId()), one.sessionId(), one.report().state(),
						one.report().stateSince(), Instant.ofEpochMilli(one.writtenAt()), false, isSilent(one),
						one.report().holdCount(), one.report().waitingCount())));
			return instances;
		}

	}

	/**
	 * One key as an instance reports it.
	 */
	private record Entry(LocalLockInfo info, String participantId, long sessionId, @Nullable ConnectionState state,
			boolean silent) {
	}

	// ---- queues

	/**
	 * The lock nodes of one path as read: the kind, the nodes, and how many were not
	 * listed.
	 */
	private record Queue(LockKind kind, List<Node> nodes, int unlisted) {

		static final Queue EMPTY = new Queue(LockKind.EXCLUSIVE, List.of(), 0);

	}

	/** One lock node as read, and whether it is a semaphore's waiter. */
	private record Node(String path, String name, LocalWaiter.Mode mode, String owner, Stat stat, boolean waits) {
	}

	/**
	 * Read the lock nodes of every path: their stats, their children (and a semaphore's
	 * {@code leases} and {@code locks}), then the data of the children named as lock
	 * nodes.
	 */
	private Map<String, Queue> readQueues(List<String> paths, Deadline deadline) throws Exception {
		List<@Nullable Stat> stats = stats(paths, deadline);
		Map<String, Integer> sizes = new LinkedHashMap<>();
		Map<String, Integer> unlisted = new HashMap<>();
		for (int i = 0; i < paths.size(); i++) {
			Stat stat = stats.get(i);
			int size = (stat != null) ? stat.getNumChildren() : 0;
			if (size > this.options.maxNodesPerKey()) {
				unlisted.put(paths.get(i), size);
			}
			else if (size > 0) {
				sizes.put(paths.get(i), size);
			}
		}
		Map<String, List<String>> children = children(new ArrayList<>(sizes.keySet()), sizes, deadline);
		Map<String, LockKind> kinds = new HashMap<>();
		List<String> semaphoreParts = new ArrayList<>();
		children.forEach((path, names) -> {
			if (names.contains(LockDriver.SEMAPHORE_LEASES)) {
				kinds.put(path, LockKind.SEMAPHORE);
				semaphoreParts.add(ZKPaths.makePath(path, LockDriver.SEMAPHORE_LEASES));
				semaphoreParts.add(ZKPaths.makePath(path, SEMAPHORE_LOCKS));
			}
			else if (names.stream().anyMatch((name) -> name.contains(LockDriver.READ.lockName()))) {
				kinds.put(path, LockKind.READ_WRITE);
			}
		});
		List<@Nullable Stat> partStats = stats(semaphoreParts, deadline);
		Map<String, Integer> partSizes = new LinkedHashMap<>();
		for (int i = 0; i < semaphoreParts.size(); i++) {
			Stat stat = partStats.get(i);
			int size = (stat != null) ? stat.getNumChildren() : 0;
			if (size > this.options.maxNodesPerKey()) {
				String key = ZKPaths.getPathAndNode(semaphoreParts.get(i)).getPath();
				unlisted.merge(key, size, Integer::sum);
			}
			else if (size > 0) {
				partSizes.put(semaphoreParts.get(i), size);
			}
		}
		Map<String, List<String>> parts = children(new ArrayList<>(partSizes.keySet()), partSizes, deadline);

		// The children named as lock nodes, by the key path they belong to
		Map<String, List<Candidate>> named = new LinkedHashMap<>();
		children.forEach((path, names) -> {
			if (kinds.get(path) != LockKind.SEMAPHORE) {
				names.stream()
					.filter(NodeNames::isLockNodeName)
					.forEach((name) -> named.computeIfAbsent(path, (p) -> new ArrayList<>())
						.add(new Candidate(ZKPaths.makePath(path, name), name, modeOf(name), false)));
			}
		});
		parts.forEach((part, names) -> {
			String path = ZKPaths.getPathAndNode(part).getPath();
			boolean leases = part.endsWith("/" + LockDriver.SEMAPHORE_LEASES);
			names.stream()
				.filter((name) -> leases ? LEASE_NODE.matcher(name).matches() : NodeNames.isLockNodeName(name))
				.forEach((name) -> named.computeIfAbsent(path, (p) -> new ArrayList<>())
					.add(new Candidate(ZKPaths.makePath(part, name), name, LocalWaiter.Mode.SEMAPHORE, !leases)));
		});
		List<Candidate> all = named.values().stream().flatMap(List::stream).toList();
		List<ZkOps.MultiRead> reads = readAll(all.stream().map(Candidate::path).toList(), deadline);
		Map<String, List<Node>> nodes = new LinkedHashMap<>();
		for (int i = 0; i < all.size(); i++) {
			ZkOps.NodeData data = reads.get(i).node();
			Candidate candidate = all.get(i);
			if (data == null || data.stat().getEphemeralOwner() == 0) {
				// Gone since listed, or persistent: nobody's lock, whatever its name
				continue;
			}
			String keyPath = ZKPaths.getPathAndNode(candidate.path()).getPath();
			if (candidate.mode() == LocalWaiter.Mode.SEMAPHORE) {
				keyPath = ZKPaths.getPathAndNode(keyPath).getPath();
			}
			nodes.computeIfAbsent(keyPath, (p) -> new ArrayList<>())
				.add(new Node(candidate.path(), candidate.name(), candidate.mode(), owner(data.data()), data.stat(),
						candidate.waits()));
		}
		Map<String, Queue> queues = new HashMap<>();
		for (String path : paths) {
			List<Node> queue = new ArrayList<>(nodes.getOrDefault(path, List.of()));
			queue.sort(Comparator.comparing((Node node) -> NodeNames.sequenceOf(node.name())));
			queues.put(path,
					new Queue(kinds.getOrDefault(path, LockKind.EXCLUSIVE), queue, unlisted.getOrDefault(path, 0)));
		}
		return queues;
	}

	/** A child named as a lock node, not yet read. */
	private record Candidate(String path, String name, LocalWaiter.Mode mode, boolean waits) {
	}

	private static LocalWaiter.Mode modeOf(String name) {
		if (name.contains(LockDriver.READ.lockName())) {
			return LocalWaiter.Mode.READ;
		}
		if (name.contains(LockDriver.WRITE.lockName())) {
			return LocalWaiter.Mode.WRITE;
		}
		return LocalWaiter.Mode.EXCLUSIVE;
	}

	private static String owner(byte[] data) {
		String owner = LockPaths.printable(new String(data, StandardCharsets.UTF_8).strip());
		return (owner.length() > MAX_OWNER_LENGTH) ? owner.substring(0, MAX_OWNER_LENGTH) + "..." : owner;
	}

	private static String hostOf(String owner) {
		int at = owner.indexOf('@');
		return (at >= 0) ? owner.substring(at + 1) : owner;
	}

	// ---- what a key's nodes mean

	private KeyView keyView(String key, String path, Queue queue, Reports reports, Instant readAt, boolean group) {
		List<NodeView> holders = new ArrayList<>();
		List<NodeView> waiters = new ArrayList<>();
		boolean writerAhead = false;
		List<String> shown = new ArrayList<>();
		List<Entry> matched = new ArrayList<>();
		for (Node node : queue.nodes()) {
			boolean holds = switch (node.mode()) {
				case SEMAPHORE -> !node.waits();
				case READ -> !writerAhead;
				default -> holders.isEmpty() && waiters.isEmpty();
			};
			if (node.mode() == LocalWaiter.Mode.WRITE || node.mode() == LocalWaiter.Mode.EXCLUSIVE) {
				writerAhead = true;
			}
			Entry entry = reports.forNode(node.path());
			if (entry == null) {
				// An entry that names no node yet: the node of its session that zk-lock
				// made
				// (not a plain Curator recipe on the same client), one node per entry
				entry = reports.forKeyPath(path)
					.stream()
					.filter((candidate) -> candidate.sessionId() == node.stat().getEphemeralOwner()
							&& candidate.info().nodePath() == null && candidate.participantId().equals(node.owner())
							&& !matched.contains(candidate))
					.findFirst()
					.orElse(null);
			}
			if (entry != null) {
				matched.add(entry);
			}
			shown.add(node.path());
			NodeView view = nodeView(node, entry, holds, readAt, group);
			(holds ? holders : waiters).add(view);
		}
		List<NodeView> lost = new ArrayList<>();
		for (Entry entry : reports.forKeyPath(path)) {
			LocalLockInfo info = entry.info();
			LeaseState state = info.leaseState();
			String node = info.nodePath();
			if (node != null && !shown.contains(node) && (state == LeaseState.LOST || state == LeaseState.UNCERTAIN)) {
				Long token = info.fencingToken();
				Instant since = (info.heldSince() != null) ? info.heldSince() : readAt;
				lost.add(new NodeView(ZKPaths.getNodeFromPath(node), modeOf(info), entry.sessionId(),
						entry.participantId(), hostOf(entry.participantId()), (token != null) ? token : 0, since,
						Duration.ZERO, info.holderThread(), info.heldSince(), LeaseState.LOST, false, info.waiting(),
						entry.participantId()));
			}
		}
		return new KeyView(key, path, queue.kind(), holders, waiters, lost, queue.unlisted());
	}

	private static LocalWaiter.Mode modeOf(LocalLockInfo info) {
		return switch (info.kind()) {
			case SEMAPHORE -> LocalWaiter.Mode.SEMAPHORE;
			case READ_WRITE -> (info.holderThread() != null) ? LocalWaiter.Mode.WRITE : LocalWaiter.Mode.READ;
			default -> LocalWaiter.Mode.EXCLUSIVE;
		};
	}

	private static NodeView nodeView(Node node, @Nullable Entry entry, boolean holds, Instant readAt, boolean group) {
		Stat stat = node.stat();
		Instant queuedAt = Instant.ofEpochMilli(stat.getCtime());
		Duration waited = holds ? Duration.ZERO : Duration.between(queuedAt, readAt);
		if (waited.isNegative()) {
			waited = Duration.ZERO;
		}
		if (entry == null) {
			// A zk-lock leader writes its node's data again when its term begins (version
			// 1):
			// its mtime is when it came to lead, as groupMembers reads it
			Instant leading = (group && holds && stat.getVersion() > 0) ? Instant.ofEpochMilli(stat.getMtime()) : null;
			return new NodeView(node.name(), node.mode(), stat.getEphemeralOwner(), node.owner(), hostOf(node.owner()),
					stat.getCzxid(), queuedAt, waited, null, leading, null, false, List.of(), null);
		}
		LocalLockInfo info = entry.info();
		LeaseState state = info.leaseState();
		if (state == LeaseState.HELD && entry.silent()) {
			// Its instance has stopped reporting: whether it still holds is in doubt
			state = LeaseState.UNCERTAIN;
		}
		return new NodeView(node.name(), node.mode(), stat.getEphemeralOwner(), node.owner(), hostOf(node.owner()),
				stat.getCzxid(), queuedAt, waited, holds ? info.holderThread() : null, holds ? info.heldSince() : null,
				state, info.lingering(), info.waiting(), entry.participantId());
	}

	// ---- reads

	/**
	 * The stats of paths, by a {@code getData} each, in batches; {@code null} for a
	 * missing node.
	 */
	private List<@Nullable Stat> stats(List<String> paths, Deadline deadline) throws Exception {
		List<@Nullable Stat> stats = new ArrayList<>();
		for (ZkOps.MultiRead read : readAll(paths, deadline)) {
			ZkOps.NodeData node = read.node();
			stats.add((node != null) ? node.stat() : null);
		}
		return stats;
	}

	/**
	 * The children of paths, by a {@code getChildren} each, in batches sized by how many
	 * children each path has (at most {@value #CHILDREN_PER_BATCH} names per reply).
	 */
	private Map<String, List<String>> children(List<String> paths, Map<String, Integer> sizes, Deadline deadline)
			throws Exception {
		List<List<String>> batches = new ArrayList<>();
		List<String> batch = new ArrayList<>();
		int names = 0;
		for (String path : paths) {
			int size = sizes.getOrDefault(path, 1);
			if (!batch.isEmpty() && (batch.size() == BATCH || names + size > CHILDREN_PER_BATCH)) {
				batches.add(batch);
				batch = new ArrayList<>();
				names = 0;
			}
			batch.add(path);
			names += size;
		}
		if (!batch.isEmpty()) {
			batches.add(batch);
		}
		List<CompletableFuture<List<ZkOps.MultiRead>>> replies = new ArrayList<>();
		for (List<String> one : batches) {
			replies.add(this.engine.readMany(one, List.of()));
		}
		Map<String, List<String>> children = new LinkedHashMap<>();
		for (int b = 0; b < batches.size(); b++) {
			List<ZkOps.MultiRead> reads = await(replies.get(b), deadline);
			for (int i = 0; i < reads.size(); i++) {
				List<String> list = reads.get(i).children();
				if (list != null) {
					children.put(batches.get(b).get(i), list);
				}
			}
		}
		return children;
	}

	/**
	 * Read nodes by {@code getData}, {@value #BATCH} per multi-read, all sent at once.
	 */
	private List<ZkOps.MultiRead> readAll(List<String> read, Deadline deadline) throws Exception {
		List<CompletableFuture<List<ZkOps.MultiRead>>> replies = new ArrayList<>();
		for (int from = 0; from < read.size(); from += BATCH) {
			replies.add(this.engine.readMany(List.of(), read.subList(from, Math.min(read.size(), from + BATCH))));
		}
		List<ZkOps.MultiRead> reads = new ArrayList<>();
		for (CompletableFuture<List<ZkOps.MultiRead>> reply : replies) {
			reads.addAll(await(reply, deadline));
		}
		return reads;
	}

	private List<ZkOps.MultiRead> await(CompletableFuture<List<ZkOps.MultiRead>> reply, Deadline deadline)
			throws Exception {
		return awaitNode(reply, deadline);
	}

	private <T extends @Nullable Object> T awaitNode(CompletableFuture<T> reply, Deadline deadline) throws Exception {
		try {
			return Futures.await(reply, deadline.remainingNanos());
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("ZooKeeper did not answer within " + deadline.elapsed().toMillis()
					+ " ms when reading the cluster view of " + this.rootPath + ", connect string "
					+ this.engine.connectString());
		}
	}

}
