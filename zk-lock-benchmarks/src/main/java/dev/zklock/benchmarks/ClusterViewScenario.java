package dev.zklock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.view.ClusterView;
import dev.zklock.core.view.InstanceView;
import dev.zklock.core.view.KeyView;
import dev.zklock.core.view.NodeView;
import dev.zklock.core.view.ViewOptions;
import dev.zklock.core.view.ViewRequest;

/**
 * Scenario 8: the cluster view ({@link ZkLockRegistry#clusterView}) of three worker JVMs'
 * holds and queues, read by a fourth registry in this JVM, as an Actuator endpoint would
 * read it. Each worker ({@link ViewWorker}) publishes its report with the default
 * options, holds its third of the keys by leases, and queues its share of the zk-lock
 * waiting calls on the keys the other two hold (the engine queues one JVM's calls on a
 * key locally, behind one node of that JVM), plus plain Curator {@code InterProcessMutex}
 * waiters, a node each. The harness waits until the view shows all of it, then times
 * reads of the first page of every key, each checked against the setup: a view that
 * misses a node is a correctness failure, not a fast read. Two controls are timed in the
 * same rounds on the observer's client: a {@code getChildren} of the lock root alone, and
 * the same nodes read by plain asynchronous requests, one per node, pipelined in three
 * rounds (the root's and the instances' children; every key's children and every report's
 * data; every lock node's data).
 */
final class ClusterViewScenario {

	static final String TITLE = "Scenario 8: cluster view of 3 JVMs' holds and queues, read by a 4th";

	static final String SETUP_TITLE = "Scenario 8, the setup as the view read it";

	static final String ROOT_LIST = "control: getChildren of the lock root alone";

	static final String PLAIN = "control: the same nodes by plain async requests, one per node";

	/**
	 * The lock root path of the scenario.
	 */
	static final String ROOT = "/view-bench";

	static final int JVMS = 3;

	static final long GOAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

	/**
	 * Until the view shows the whole setup: a few thousand threads to start and queue on
	 * a loaded machine.
	 */
	private static final long COMPLETE_TIMEOUT_MS = 300_000;

	/**
	 * Between two rounds: a dashboard does not read back to back.
	 */
	private static final long PAUSE_MS = 20;

	private ClusterViewScenario() {
	}

	/**
	 * The sizes of the mode.
	 *
	 * @param keys keys, held by the three JVMs in turn
	 * @param waitingCalls zk-lock waiting calls over the three JVMs
	 * @param curatorPerKey plain Curator waiters per key in each JVM
	 * @param warmUp rounds before the measured ones, not kept
	 * @param reads measured rounds
	 * @param smoke whether the workers start with C1 only
	 */
	record Sizes(int keys, int waitingCalls, int curatorPerKey, int warmUp, int reads, boolean smoke) {

		static Sizes of(boolean smoke) {
			return smoke ? new Sizes(50, 100, 1, 3, 10, true) : new Sizes(1000, 5000, 1, 10, 100, false);
		}

		/**
		 * The waiter nodes the zk-lock waiting calls make: one per key per JVM that waits
		 * for it.
		 */
		int zkLockWaiterNodes() {
			int nodes = 0;
			for (int jvm = 0; jvm < JVMS; jvm++) {
				nodes += new HashSet<>(waitedKeys(jvm, this.keys, this.waitingCalls)).size();
			}
			return nodes;
		}

		int curatorWaiterNodes() {
			return JVMS * this.keys * this.curatorPerKey;
		}

		int waiterNodes() {
			return zkLockWaiterNodes() + curatorWaiterNodes();
		}

		String label() {
			return this.keys + " held keys, " + this.waitingCalls + " zk-lock waiting calls (" + zkLockWaiterNodes()
					+ " waiter nodes) and " + curatorWaiterNodes() + " Curator waiters across " + JVMS + " JVMs";
		}

	}

	/**
	 * Key {@code i}: zero-padded, so that key order is index order.
	 */
	static String key(int i) {
		return String.format(Locale.ROOT, "k%04d", i);
	}

	/**
	 * The JVM that holds key {@code i}.
	 */
	static int holderOf(int i) {
		return i % JVMS;
	}

	/**
	 * The keys JVM {@code jvm}'s waiting calls wait for, one per call: its share of the
	 * calls, in turn over the keys the other JVMs hold.
	 */
	static List<Integer> waitedKeys(int jvm, int keys, int waitingCalls) {
		List<Integer> others = IntStream.range(0, keys).filter((i) -> holderOf(i) != jvm).boxed().toList();
		int calls = waitingCalls / JVMS + ((jvm < waitingCalls % JVMS) ? 1 : 0);
		List<Integer> waited = new ArrayList<>();
		for (int c = 0; c < calls && !others.isEmpty(); c++) {
			waited.add(others.get(c % others.size()));
		}
		return waited;
	}

	/**
	 * What the scenario measured, for its goal.
	 *
	 * @param sizes the sizes
	 * @param view the view's read times, nanoseconds, in round order
	 * @param rootList the first control's
	 * @param plain the second control's
	 */
	record Result(Sizes sizes, List<Long> view, List<Long> rootList, List<Long> plain) {
	}

	static @Nullable Result run(ExternalZooKeeper zk, Sizes sizes, Path workDir, Report report) throws Exception {
		report.table(TITLE, "read", "reads", "min (ms)", "p50 (ms)", "p95 (ms)", "max (ms)", "what it read");
		report.table(SETUP_TITLE, "what", "set up", "the view showed");
		List<Path> outputs = new ArrayList<>();
		List<Process> workers = new ArrayList<>();
		long launched = System.nanoTime();
		try {
			for (int j = 0; j < JVMS; j++) {
				Path out = workDir.resolve("view-jvm" + j + ".csv");
				outputs.add(out);
				workers.add(MultiJvmScenario.launch(List.of(ViewWorker.ROLE, zk.connectString(), out.toString(),
						Integer.toString(j), Integer.toString(sizes.keys()), Integer.toString(sizes.waitingCalls()),
						Integer.toString(sizes.curatorPerKey())), out, sizes.smoke()));
			}
			if (MultiJvmScenario.awaitReady(workers, outputs) == null) {
				report.failure(TITLE + ": worker JVMs did not hold their keys within "
						+ MultiJvmScenario.READY_TIMEOUT_MS / 1000 + " s; see " + workDir.resolve("view-jvm*.csv.log"));
				return null;
			}
			System.out.println("  " + TITLE + ": keys held after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launched) + " ms");
			// The workers queue their waiters at once, and run until standard input ends
			MultiJvmScenario.go(workers, 3600);
			try (CuratorFramework client = zk.newClient();
					ZkLockRegistry observer = new ZkLockRegistry(client, ZkLockOptions.defaults().withRootPath(ROOT))) {
				return measure(client, observer, sizes, workers, outputs, launched, report);
			}
		}
		finally {
			stop(workers, outputs, report);
		}
	}

	private static @Nullable Result measure(CuratorFramework client, ZkLockRegistry observer, Sizes sizes,
			List<Process> workers, List<Path> outputs, long launched, Report report) throws Exception {
		ViewOptions options = ViewOptions.defaults();
		ViewRequest request = new ViewRequest("", null, Math.min(sizes.keys(), ViewRequest.MAX_LIMIT));
		ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
		ClusterView complete = awaitComplete(observer, request, options, sizes, workers, report);
		if (complete == null) {
			return null;
		}
		System.out.println("  " + TITLE + ": the view showed the whole setup "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launched) + " ms after the launch");
		setUp(complete, zooKeeper, options, sizes, outputs, report);
		List<Long> views = new ArrayList<>();
		List<Long> rootLists = new ArrayList<>();
		List<Long> plains = new ArrayList<>();
		List<String> wrong = new ArrayList<>();
		long[] plainRead = new long[0];
		for (int round = 0; round < sizes.warmUp() + sizes.reads(); round++) {
			boolean kept = round >= sizes.warmUp();
			long start = System.nanoTime();
			ClusterView view;
			try {
				view = observer.clusterView(request, options);
			}
			catch (Exception ex) {
				report.failure(TITLE + ": a read failed in round " + round + ": " + ex);
				return null;
			}
			long viewNanos = System.nanoTime() - start;
			List<String> problems = check(view, sizes);
			if (!problems.isEmpty()) {
				wrong.add("round " + round + ": " + String.join("; ", problems));
			}
			start = System.nanoTime();
			int rootChildren = zooKeeper.getChildren(ROOT, false).size();
			long rootNanos = System.nanoTime() - start;
			start = System.nanoTime();
			plainRead = plainRead(zooKeeper, options.instancesPath());
			long plainNanos = System.nanoTime() - start;
			if (rootChildren != sizes.keys() || plainRead[0] != sizes.keys()
					|| plainRead[1] != sizes.keys() + sizes.waiterNodes()) {
				wrong.add("round " + round + ": the controls read " + rootChildren + " and " + plainRead[0]
						+ " keys and " + plainRead[1] + " lock nodes");
			}
			if (kept) {
				views.add(viewNanos);
				rootLists.add(rootNanos);
				plains.add(plainNanos);
			}
			Thread.sleep(PAUSE_MS);
		}
		wrong.forEach((problem) -> report.failure(TITLE + ": the read did not show the setup, " + problem));
		int waiters = sizes.waiterNodes();
		row(report, "zk-lock clusterView, first page of " + request.limit() + " keys", views,
				sizes.keys() + " keys, " + sizes.keys() + " holders, " + waiters + " waiter nodes, " + (JVMS + 1)
						+ " instances per read; " + (sizes.warmUp() + sizes.reads() - wrong.size()) + " of "
						+ (sizes.warmUp() + sizes.reads()) + " reads complete");
		row(report, ROOT_LIST, rootLists, sizes.keys() + " names");
		row(report, PLAIN, plains, plainRead[0] + " key lists, " + plainRead[1] + " lock nodes' data, " + plainRead[2]
				+ " reports' data (" + (1 + plainRead[0] + plainRead[1] + plainRead[2] + 1) + " requests)");
		return new Result(sizes, views, rootLists, plains);
	}

	/**
	 * Read the view until it shows the whole setup; null (a failure reported) if it does
	 * not in time or a worker died.
	 */
	private static @Nullable ClusterView awaitComplete(ZkLockRegistry observer, ViewRequest request,
			ViewOptions options, Sizes sizes, List<Process> workers, Report report) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMPLETE_TIMEOUT_MS);
		String last = "no read yet";
		while (System.nanoTime() < deadline) {
			if (workers.stream().anyMatch((worker) -> !worker.isAlive())) {
				report.failure(TITLE + ": a worker JVM died while queueing its waiters; last read: " + last);
				return null;
			}
			try {
				ClusterView view = observer.clusterView(request, options);
				List<String> problems = check(view, sizes);
				if (problems.isEmpty()) {
					return view;
				}
				last = String.join("; ", problems);
			}
			catch (Exception ex) {
				last = ex.toString();
			}
			Thread.sleep(500);
		}
		report.failure(TITLE + ": the view did not show the setup within " + COMPLETE_TIMEOUT_MS / 1000
				+ " s; last read: " + last);
		return null;
	}

	/**
	 * What differs between the view and the setup, empty if nothing: every key listed,
	 * one holder each, every waiter node (zk-lock's told from Curator's by their data, a
	 * participant id {@code pid@host} against the client's address), and every instance
	 * with the holds and waiting calls of its report.
	 */
	static List<String> check(ClusterView view, Sizes sizes) {
		List<String> problems = new ArrayList<>();
		expect(problems, "keys under the root", view.keysUnderRoot(), sizes.keys());
		expect(problems, "keys listed", view.keys().size(), Math.min(sizes.keys(), ViewRequest.MAX_LIMIT));
		expect(problems, "holders", view.keys().stream().mapToInt((key) -> key.holders().size()).sum(), sizes.keys());
		List<NodeView> waiters = view.keys().stream().flatMap((key) -> key.waiters().stream()).toList();
		expect(problems, "zk-lock waiter nodes", (int) waiters.stream().filter(ClusterViewScenario::isZkLock).count(),
				sizes.zkLockWaiterNodes());
		expect(problems, "Curator waiter nodes", (int) waiters.stream().filter((node) -> !isZkLock(node)).count(),
				sizes.curatorWaiterNodes());
		expect(problems, "instances", view.instances().size(), JVMS + 1);
		List<InstanceView> others = view.instances().stream().filter((instance) -> !instance.self()).toList();
		expect(problems, "holds the instances report", others.stream().mapToInt(InstanceView::holds).sum(),
				sizes.keys());
		expect(problems, "waiting calls the instances report", others.stream().mapToInt(InstanceView::waiting).sum(),
				sizes.waitingCalls());
		return problems;
	}

	private static boolean isZkLock(NodeView node) {
		return node.owner().contains("@");
	}

	private static void expect(List<String> problems, String what, int actual, int expected) {
		if (actual != expected) {
			problems.add(what + " " + actual + " (expected " + expected + ")");
		}
	}

	/**
	 * The setup table: what the workers set up against what the complete view showed, and
	 * the size of the reports.
	 */
	private static void setUp(ClusterView view, ZooKeeper zooKeeper, ViewOptions options, Sizes sizes,
			List<Path> outputs, Report report) throws Exception {
		List<String> lines = new ArrayList<>();
		for (Path out : outputs) {
			lines.add(Files.readString(out).trim());
		}
		// held,waitingCalls,curatorWaiters,failures per worker
		String perJvm = lines.stream().collect(Collectors.joining(" / "));
		List<KeyView> keys = view.keys();
		List<NodeView> waiters = keys.stream().flatMap((key) -> key.waiters().stream()).toList();
		List<InstanceView> others = view.instances().stream().filter((instance) -> !instance.self()).toList();
		report.row(SETUP_TITLE, "keys held (leases), per JVM",
				lines.stream().map((line) -> line.split(",")[0]).collect(Collectors.joining(" / ")),
				keys.size() + " keys, " + keys.stream().mapToInt((key) -> key.holders().size()).sum() + " holders, "
						+ keys.stream()
							.flatMap((key) -> key.holders().stream())
							.filter((node) -> node.reportedBy() != null)
							.count()
						+ " of them matched to a report");
		report.row(SETUP_TITLE, "zk-lock waiting calls, per JVM",
				lines.stream().map((line) -> line.split(",")[1]).collect(Collectors.joining(" / ")),
				others.stream()
					.map((instance) -> Integer.toString(instance.waiting()))
					.collect(Collectors.joining(" / ")) + " reported; "
						+ waiters.stream().mapToInt((node) -> node.localWaiters().size()).sum()
						+ " listed on their nodes");
		report.row(SETUP_TITLE, "zk-lock waiter nodes (one per key per waiting JVM)",
				Integer.toString(sizes.zkLockWaiterNodes()),
				Long.toString(waiters.stream().filter(ClusterViewScenario::isZkLock).count()));
		report.row(SETUP_TITLE, "Curator InterProcessMutex waiters (a thread and a node each), per JVM",
				lines.stream().map((line) -> line.split(",")[2]).collect(Collectors.joining(" / ")),
				waiters.stream().filter((node) -> !isZkLock(node)).count() + " nodes");
		List<String> reports = zooKeeper.getChildren(options.instancesPath(), false);
		List<String> sizesKb = new ArrayList<>();
		for (String name : reports) {
			Stat stat = zooKeeper.exists(options.instancesPath() + "/" + name, false);
			if (stat != null) {
				sizesKb.add(Report.fixed(stat.getDataLength() / 1024.0, 0));
			}
		}
		report.row(SETUP_TITLE, "instances reporting (report node size, KB)", JVMS + " (" + perJvm + ")",
				others.size() + " (" + String.join(" / ", sizesKb) + ")");
		System.out.println("  " + TITLE + ": workers held,waitingCalls,curatorWaiters,failures " + perJvm);
	}

	private static void row(Report report, String name, List<Long> nanos, String what) {
		List<Long> sorted = nanos.stream().sorted().toList();
		report.row(TITLE, name, Integer.toString(nanos.size()), CellResult.ms(CellResult.percentile(sorted, 0.0)),
				CellResult.ms(CellResult.percentile(sorted, 0.50)), CellResult.ms(CellResult.percentile(sorted, 0.95)),
				CellResult.ms(CellResult.percentile(sorted, 1.0)), what);
	}

	/**
	 * The second control: the lock root's and the instances path's children, then every
	 * key's children and every report's data, then every lock node's data, each round's
	 * requests sent at once on the bare client.
	 * @return keys listed, lock nodes read, reports read
	 */
	static long[] plainRead(ZooKeeper zooKeeper, String instancesPath) throws Exception {
		CompletableFuture<List<String>> rootList = children(zooKeeper, ROOT);
		CompletableFuture<List<String>> reportList = children(zooKeeper, instancesPath);
		List<String> keys = rootList.get(30, TimeUnit.SECONDS);
		List<String> reports = reportList.get(30, TimeUnit.SECONDS);
		List<CompletableFuture<List<String>>> keyLists = new ArrayList<>();
		for (String key : keys) {
			keyLists.add(children(zooKeeper, ROOT + "/" + key));
		}
		List<CompletableFuture<byte[]>> reportData = new ArrayList<>();
		for (String report : reports) {
			reportData.add(data(zooKeeper, instancesPath + "/" + report));
		}
		List<CompletableFuture<byte[]>> nodeData = new ArrayList<>();
		for (int i = 0; i < keys.size(); i++) {
			for (String node : keyLists.get(i).get(30, TimeUnit.SECONDS)) {
				nodeData.add(data(zooKeeper, ROOT + "/" + keys.get(i) + "/" + node));
			}
		}
		for (CompletableFuture<byte[]> data : reportData) {
			data.get(30, TimeUnit.SECONDS);
		}
		for (CompletableFuture<byte[]> data : nodeData) {
			data.get(30, TimeUnit.SECONDS);
		}
		return new long[] { keys.size(), nodeData.size(), reportData.size() };
	}

	private static CompletableFuture<List<String>> children(ZooKeeper zooKeeper, String path) {
		CompletableFuture<List<String>> future = new CompletableFuture<>();
		zooKeeper.getChildren(path, false, (rc, p, ctx, children) -> {
			if (rc == KeeperException.Code.OK.intValue()) {
				future.complete(children);
			}
			else {
				future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
			}
		}, null);
		return future;
	}

	private static CompletableFuture<byte[]> data(ZooKeeper zooKeeper, String path) {
		CompletableFuture<byte[]> future = new CompletableFuture<>();
		zooKeeper.getData(path, false, (rc, p, ctx, data, stat) -> {
			if (rc == KeeperException.Code.OK.intValue()) {
				future.complete(data);
			}
			else {
				future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
			}
		}, null);
		return future;
	}

	/**
	 * Stop the workers: end their standard input, give them 30 s to close their sessions
	 * and exit, then kill what is left.
	 */
	private static void stop(List<Process> workers, List<Path> outputs, Report report)
			throws IOException, InterruptedException {
		for (Process worker : workers) {
			try {
				worker.getOutputStream().close();
			}
			catch (IOException ex) {
				// already gone
			}
		}
		for (int j = 0; j < workers.size(); j++) {
			Process worker = workers.get(j);
			if (worker.waitFor(30, TimeUnit.SECONDS) && worker.exitValue() != 0) {
				report.failure(TITLE + ": worker jvm" + j + " exited " + worker.exitValue() + " (a waiting call failed "
						+ "or was granted); see " + outputs.get(j) + ".log");
			}
		}
		MultiJvmScenario.cleanUp(workers, outputs);
	}

	static void goals(@Nullable Result result, Report report) {
		if (result == null) {
			return;
		}
		String description = "S8: clusterView of " + result.sizes().label() + " ≤ 500 ms at p95";
		if (result.view().isEmpty()) {
			report.goal(description, false, "not measured (no read kept)");
			return;
		}
		List<Long> view = result.view().stream().sorted().toList();
		long p95 = CellResult.percentile(view, 0.95);
		report.goal(description, p95 <= GOAL_NANOS,
				"p95 " + CellResult.ms(p95) + " ms (p50 " + CellResult.ms(CellResult.percentile(view, 0.5)) + ", max "
						+ CellResult.ms(CellResult.percentile(view, 1.0)) + ", " + view.size()
						+ " reads); controls on the same client, p50: getChildren of the root "
						+ CellResult.ms(CellResult.percentile(result.rootList().stream().sorted().toList(), 0.5))
						+ " ms, the same nodes by plain async requests "
						+ CellResult.ms(CellResult.percentile(result.plain().stream().sorted().toList(), 0.5)) + " ms");
	}

}
