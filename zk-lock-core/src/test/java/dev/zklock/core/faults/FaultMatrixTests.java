package dev.zklock.core.faults;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.ChildJvm;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.TimingSensitive;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The fault matrix: real 3-server ensembles ({@link TestingCluster}), lock clients in
 * child JVMs, servers killed and restarted, sessions expired, holders killed with
 * SIGKILL. Every scenario checks that no two critical sections of one key overlap, that
 * fencing tokens never go back, that every worker ends (success or a clear exception,
 * never a hang) and that no lock node remains. Each scenario adds a row to
 * {@code target/fault-matrix.md}.
 */
@Timeout(180)
class FaultMatrixTests {

	private static final int TICK_MS = 500;

	private static final int SESSION_TIMEOUT_MS = 6_000;

	private static final List<String> rows = new CopyOnWriteArrayList<>();

	@TempDir
	Path dir;

	private TestingCluster cluster;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final List<Process> processes = new ArrayList<>();

	@BeforeEach
	void startCluster() throws Exception {
		System.setProperty("zookeeper.forceSync", "no");
		List<InstanceSpec> specs = new ArrayList<>();
		for (int id = 1; id <= 3; id++) {
			specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, -1));
		}
		this.cluster = new TestingCluster(specs);
		this.cluster.start();
	}

	@AfterEach
	void stopCluster() throws Exception {
		this.processes.forEach(Process::destroyForcibly);
		for (AutoCloseable closeable : this.closeables) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// best effort
			}
		}
		this.cluster.close();
	}

	/**
	 * Write this JVM's rows into the report, keeping the rows of scenarios this JVM did
	 * not run: the timing-sensitive scenarios run in a JVM of their own, after the
	 * others.
	 */
	@AfterAll
	static void writeReport() throws Exception {
		Path report = Path.of("target", "fault-matrix.md");
		Map<String, String> byScenario = new TreeMap<>();
		if (Files.exists(report)) {
			Files.readAllLines(report)
				.stream()
				.filter((line) -> line.matches("\\| \\d+\\. .*"))
				.forEach((line) -> byScenario.put(scenario(line), line));
		}
		rows.forEach((line) -> byScenario.put(scenario(line), line));
		List<String> lines = new ArrayList<>();
		lines.add(
				"| scenario | grants | overlapping holds | fencing regressions | orphan nodes | time to recover | failed acquisitions |");
		lines.add("|---|---|---|---|---|---|---|");
		lines.addAll(byScenario.values());
		Files.createDirectories(report.getParent());
		Files.write(report, lines);
	}

	private static String scenario(String row) {
		return row.substring(0, row.indexOf('.'));
	}

	@Test
	void leaderKilledDuringContention() throws Exception {
		long durationMs = 20_000;
		List<Path> logs = startContenders(2, 8, 4, durationMs, 2_000);
		awaitContention(logs, durationMs);
		InstanceSpec leader = leader();
		long killedAt = System.nanoTime();
		assertThat(this.cluster.killServer(leader)).isTrue();
		List<String> summaries = awaitWorkers(durationMs);
		Analysis analysis = Analysis.of(logs);
		analysis.assertSafe();
		assertThat(analysis.grantsAfter(killedAt)).isPositive();
		int orphans = awaitNoLockNodes(Duration.ofSeconds(15));
		assertThat(orphans).isZero();
		report("1. leader killed (2 JVMs × 8 threads, 4 keys, 20 s)", analysis, orphans,
				millis(analysis.longestPauseAfter(killedAt)), failures(summaries));
	}

	@Test
	void followerKilledAndRestartedDuringContention() throws Exception {
		long durationMs = 15_000;
		List<Path> logs = startContenders(2, 8, 4, durationMs, 2_000);
		awaitContention(logs, durationMs);
		InstanceSpec follower = this.cluster.getInstances()
			.stream()
			.filter((spec) -> !spec.equals(leaderQuietly()))
			.findFirst()
			.orElseThrow();
		long killedAt = System.nanoTime();
		this.cluster.killServer(follower);
		Thread.sleep(4_000);
		this.cluster.restartServer(follower);
		List<String> summaries = awaitWorkers(durationMs);
		Analysis analysis = Analysis.of(logs);
		analysis.assertSafe();
		int orphans = awaitNoLockNodes(Duration.ofSeconds(15));
		assertThat(orphans).isZero();
		report("2. follower killed, restarted 4 s later", analysis, orphans,
				millis(analysis.longestPauseAfter(killedAt)), failures(summaries));
	}

	@TimingSensitive
	@Test
	void quorumLostThenRestored() throws Exception {
		ZkLockRegistry registry = newRegistry();
		ZkLock lock = registry.obtain("k0");
		lock.acquire(Duration.ofSeconds(5));
		lock.unlock();
		List<InstanceSpec> stopped = this.cluster.getInstances().stream().limit(2).toList();
		for (InstanceSpec spec : stopped) {
			this.cluster.killServer(spec);
		}
		long maxOverrun = 0;
		int failed = 0;
		long worstHiccup;
		try (HiccupMeter hiccups = HiccupMeter.start()) {
			for (int i = 0; i < 5; i++) {
				long start = System.nanoTime();
				try {
					lock.acquire(Duration.ofMillis(1_000));
					lock.unlock();
				}
				catch (LockAcquisitionException ex) {
					failed++;
					assertThat(ex.getMessage()).contains("'k0'");
				}
				maxOverrun = Math.max(maxOverrun, millis(System.nanoTime() - start) - 1_000);
			}
			worstHiccup = millis(hiccups.worstNanos());
		}
		assertThat(failed).isEqualTo(5);
		// As the randomized checker's: the margin beyond the worst stall a sleeping
		// thread
		// of this JVM saw meanwhile, which no engine code runs in
		assertThat(maxOverrun).as("worst overrun of a wait, ms (worst stall of a sleeping thread %d ms)", worstHiccup)
			.isLessThan(RandomizedFaultCheckerTests.WAIT_MARGIN.toMillis() + worstHiccup);
		long restartedAt = System.nanoTime();
		for (InstanceSpec spec : stopped) {
			this.cluster.restartServer(spec);
		}
		long recoveredAt = await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
			try {
				lock.acquire(Duration.ofSeconds(2));
				long acquiredAt = System.nanoTime();
				lock.unlock();
				return acquiredAt;
			}
			catch (LockAcquisitionException ex) {
				// quorum not back yet
				return 0L;
			}
		}, (acquiredAt) -> acquiredAt > 0);
		int orphans = awaitNoLockNodes(Duration.ofSeconds(20));
		assertThat(orphans).isZero();
		rows.add(row("3. quorum lost (2 of 3 stopped), restored", "–", 0, 0, orphans,
				millis(recoveredAt - restartedAt) + " ms after restart",
				failed + " of 5 failed during the loss, each within wait + " + Math.max(0, maxOverrun) + " ms"));
	}

	@Test
	void holderSessionExpiresAndStaleWriteIsFenced() throws Exception {
		ZkLockRegistry first = newRegistry();
		ZkLockRegistry second = newRegistry();
		List<LeaseState> reported = new CopyOnWriteArrayList<>();
		first.addListener(new ZkLockListener() {
			@Override
			public void leaseStateChanged(String key, String path, LeaseState state) {
				reported.add(state);
			}
		});
		FencedStore store = new FencedStore();
		ZkLock stale = first.obtain("account");
		stale.acquire(Duration.ofSeconds(5));
		long staleToken = stale.fencingToken();
		assertThat(store.write(staleToken, "first")).isTrue();
		long expiredAt = System.nanoTime();
		first.getClient().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
		ZkLock fresh = second.obtain("account");
		fresh.acquire(Duration.ofSeconds(30));
		long recovered = System.nanoTime();
		assertThat(fresh.fencingToken()).isGreaterThan(staleToken);
		assertThat(store.write(fresh.fencingToken(), "second")).isTrue();
		// the old holder still believes nothing, until told: its late write carries the
		// old token
		assertThat(store.write(staleToken, "stale")).isFalse();
		assertThat(store.value()).isEqualTo("second");
		await().atMost(Duration.ofSeconds(20))
			.pollInSameThread()
			.until(stale::leaseState, (state) -> state == LeaseState.LOST);
		// Listeners are told after the state changed
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(reported).contains(LeaseState.LOST));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stale::unlock);
		fresh.unlock();
		int orphans = awaitNoLockNodes(Duration.ofSeconds(20));
		assertThat(orphans).isZero();
		rows.add(row("4. holder's session expired", "2", 0, 0, orphans,
				millis(recovered - expiredAt) + " ms to the next holder", "stale write rejected by token"));
	}

	@TimingSensitive
	@Test
	void holderJvmKilledWithSigkill() throws Exception {
		Path log = this.dir.resolve("holder.log");
		Process holder = startWorker("hold", 1, 1, 0, 0, log);
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(log).exists().content().contains("held"));
		ZkLockRegistry waiter = newRegistry();
		ZkLock lock = waiter.obtain("k0");
		assertThat(lock.tryLock(500, TimeUnit.MILLISECONDS)).isFalse();
		long killedAt = System.nanoTime();
		holder.destroyForcibly();
		assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.tryLock(SESSION_TIMEOUT_MS * 3L, TimeUnit.MILLISECONDS)).isTrue();
		long recovered = millis(System.nanoTime() - killedAt);
		lock.unlock();
		assertThat(recovered).isLessThan(SESSION_TIMEOUT_MS * 2L);
		int orphans = awaitNoLockNodes(Duration.ofSeconds(20));
		assertThat(orphans).isZero();
		rows.add(row("5. holder JVM killed (SIGKILL)", "1", 0, 0, orphans,
				recovered + " ms (session timeout " + SESSION_TIMEOUT_MS + " ms)", "–"));
	}

	// --- helpers ---

	private List<Path> startContenders(int jvms, int threads, int keys, long durationMs, long waitMs) throws Exception {
		List<Path> logs = new ArrayList<>();
		for (int i = 0; i < jvms; i++) {
			Path log = this.dir.resolve("contender-" + i + ".csv");
			logs.add(log);
			startWorker("contend", keys, threads, durationMs, waitMs, log);
		}
		return logs;
	}

	private Process startWorker(String mode, int keys, int threads, long durationMs, long waitMs, Path log)
			throws Exception {
		Process process = ChildJvm.start(FaultWorkerMain.class, this.dir.resolve(log.getFileName() + ".out"), mode,
				this.cluster.getConnectString(), Integer.toString(SESSION_TIMEOUT_MS), Integer.toString(keys),
				Integer.toString(threads), Long.toString(durationMs), Long.toString(waitMs), log.toString());
		this.processes.add(process);
		return process;
	}

	/**
	 * Wait until every contender has logged its first grant: the fault then strikes
	 * contention under way. A contender's run is timed from its own start, so a JVM that
	 * a loaded machine starts late still contends for its whole run after the fault.
	 */
	private static void awaitContention(List<Path> logs, long durationMs) {
		Awaitility.await("contention under way in every contender JVM")
			.atMost(Duration.ofMillis(durationMs + 60_000))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> logs.stream().allMatch((log) -> log.toFile().length() > 0));
	}

	private List<String> awaitWorkers(long durationMs) throws Exception {
		List<String> summaries = new ArrayList<>();
		int index = 0;
		for (Process process : this.processes) {
			boolean exited = process.waitFor(durationMs + 60_000, TimeUnit.MILLISECONDS);
			Path out = this.dir.resolve("contender-" + index + ".csv.out");
			String output = Files.exists(out) ? Files.readString(out) : "";
			assertThat(exited).as("worker %d ended (no hang); output:%n%s", index, output).isTrue();
			assertThat(process.exitValue()).as("worker %d exit code; output:%n%s", index, output).isZero();
			output.lines().filter((line) -> line.startsWith("SUMMARY")).forEach(summaries::add);
			index++;
		}
		return summaries;
	}

	private ZkLockRegistry newRegistry() throws Exception {
		CuratorFramework client = CuratorFrameworkFactory.newClient(this.cluster.getConnectString(), SESSION_TIMEOUT_MS,
				3_000, new RetryOneTime(100));
		client.start();
		client.blockUntilConnected(20, TimeUnit.SECONDS);
		ZkLockRegistry registry = new ZkLockRegistry(client);
		this.closeables.add(0, client);
		this.closeables.add(0, registry);
		return registry;
	}

	/**
	 * Wait until no lock node remains under {@code /locks}; return how many remain.
	 */
	private int awaitNoLockNodes(Duration timeout) throws Exception {
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(this.cluster.getConnectString(),
				new RetryOneTime(200))) {
			client.start();
			client.blockUntilConnected(20, TimeUnit.SECONDS);
			Callable<Integer> lockNodes = () -> {
				int remaining = 0;
				if (client.checkExists().forPath("/locks") != null) {
					for (String key : client.getChildren().forPath("/locks")) {
						try {
							remaining += client.getChildren().forPath("/locks/" + key).size();
						}
						catch (org.apache.zookeeper.KeeperException.NoNodeException ex) {
							// container reaped meanwhile
						}
					}
				}
				return remaining;
			};
			try {
				return await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(lockNodes, (n) -> n == 0);
			}
			catch (ConditionTimeoutException ex) {
				return lockNodes.call();
			}
		}
	}

	private InstanceSpec leaderQuietly() {
		try {
			return leader();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The leader, asked of each server with the {@code srvr} four-letter command.
	 */
	private InstanceSpec leader() throws Exception {
		return await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> this.cluster.getInstances()
				.stream()
				.filter((spec) -> mode(spec).contains("leader"))
				.findFirst()
				.orElse(null), java.util.Objects::nonNull);
	}

	private static String mode(InstanceSpec spec) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", spec.getPort()), 1_000);
			socket.setSoTimeout(2_000);
			OutputStream out = socket.getOutputStream();
			out.write("srvr".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			return in.lines().filter((line) -> line.startsWith("Mode:")).findFirst().orElse("");
		}
		catch (Exception ex) {
			return "";
		}
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private static String failures(List<String> summaries) {
		long timeouts = 0;
		long notConnected = 0;
		long lost = 0;
		long overrun = 0;
		for (String summary : summaries) {
			Map<String, Long> values = new HashMap<>();
			for (String part : summary.substring("SUMMARY ".length()).split(" ")) {
				String[] kv = part.split("=");
				values.put(kv[0], Long.parseLong(kv[1]));
			}
			timeouts += values.get("timeouts");
			notConnected += values.get("notConnected");
			lost += values.get("lost");
			overrun = Math.max(overrun, values.get("maxOverrunMs"));
			assertThat(values.get("unexpected")).isZero();
		}
		return timeouts + " timed out, " + notConnected + " not connected, " + lost
				+ " lost; worst overrun of the wait " + Math.max(0, overrun) + " ms";
	}

	private void report(String scenario, Analysis analysis, int orphans, long recoveryMs, String failures) {
		rows.add(row(scenario, Integer.toString(analysis.grants()), analysis.overlaps(), analysis.tokenRegressions(),
				orphans, recoveryMs + " ms longest pause in new leases after the fault", failures));
	}

	private static String row(String scenario, String grants, int overlaps, int regressions, int orphans,
			String recovery, String failures) {
		return "| " + scenario + " | " + grants + " | " + overlaps + " | " + regressions + " | " + orphans + " | "
				+ recovery + " | " + failures + " |";
	}

	/**
	 * The intervals logged by all workers, checked per key.
	 */
	record Analysis(int grants, int overlaps, int tokenRegressions, List<long[]> enters) {

		static Analysis of(List<Path> logs) throws Exception {
			Map<String, List<String[]>> byKey = new HashMap<>();
			List<long[]> enters = new ArrayList<>();
			int grants = 0;
			for (Path log : logs) {
				for (String line : Files.readAllLines(log)) {
					String[] parts = line.split(",");
					byKey.computeIfAbsent(parts[0], (k) -> new ArrayList<>()).add(parts);
					enters.add(new long[] { Long.parseLong(parts[1]), Long.parseLong(parts[3]) });
					grants++;
				}
			}
			int overlaps = 0;
			int regressions = 0;
			for (List<String[]> intervals : byKey.values()) {
				intervals.sort(Comparator.comparingLong((String[] parts) -> Long.parseLong(parts[1])));
				for (int i = 1; i < intervals.size(); i++) {
					String[] previous = intervals.get(i - 1);
					String[] current = intervals.get(i);
					if (Long.parseLong(current[1]) < Long.parseLong(previous[2])) {
						overlaps++;
					}
					if (Long.parseLong(current[3]) < Long.parseLong(previous[3])) {
						regressions++;
					}
				}
			}
			return new Analysis(grants, overlaps, regressions, enters);
		}

		void assertSafe() {
			assertThat(this.grants).as("grants").isPositive();
			assertThat(this.overlaps).as("overlapping critical sections").isZero();
			assertThat(this.tokenRegressions).as("fencing tokens going back").isZero();
		}

		long grantsAfter(long nanos) {
			return this.enters.stream().filter((enter) -> enter[0] > nanos).count();
		}

		/**
		 * The longest time without a new lease (a grant through ZooKeeper rather than a
		 * local hand-off) in the seconds after a fault: the outage the clients saw.
		 */
		long longestPauseAfter(long nanos) {
			Map<Long, Long> leaseStarts = new HashMap<>();
			this.enters.forEach((enter) -> leaseStarts.merge(enter[1], enter[0], Math::min));
			List<Long> starts = leaseStarts.values()
				.stream()
				.filter((start) -> start > nanos - TimeUnit.SECONDS.toNanos(1))
				.filter((start) -> start < nanos + TimeUnit.SECONDS.toNanos(10))
				.sorted()
				.toList();
			long longest = 0;
			for (int i = 1; i < starts.size(); i++) {
				longest = Math.max(longest, starts.get(i) - starts.get(i - 1));
			}
			return longest;
		}

	}

	/**
	 * A tiny storage that accepts a write only with a fencing token at least as large as
	 * any it has seen: what makes a stale holder harmless.
	 */
	static final class FencedStore {

		private long highestToken;

		private String value = "";

		synchronized boolean write(long token, String value) {
			if (token < this.highestToken) {
				return false;
			}
			this.highestToken = token;
			this.value = value;
			return true;
		}

		synchronized String value() {
			return this.value;
		}

	}

}
