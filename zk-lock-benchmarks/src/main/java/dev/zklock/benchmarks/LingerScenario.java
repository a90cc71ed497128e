package dev.zklock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 5: one JVM re-locks its own key in a loop while another JVM now and then wants
 * it, on the standalone server. Each run starts two fresh worker JVMs
 * ({@link LingerWorker}): an owner, with Curator's {@code InterProcessMutex} (the
 * baseline), zk-lock without linger, or zk-lock with {@code withLinger(linger)}; and the
 * same visitor every time, zk-lock without linger, which takes the owner's key every
 * period and a key nobody else uses half a period later.
 *
 * <p>
 * Measured: the owner's cost per cycle (time in lock and unlock), how many of its cycles
 * reused the node of the cycle before (same fencing token), ZooKeeper requests per owner
 * cycle (every client's, counted by the server), and the visitor's wait on the owner's
 * key and on the free key. The visitor's extra wait is its wait on the owner's key minus
 * its wait on the free key in the same run: the free key shares the visitor's JVM,
 * connection, server and moment, so the difference is what the owner's node costs the
 * visitor, and nothing the owner's own requests do to the server. It is held to one watch
 * notification plus one delete ({@link LingerWorker#probe}): the time from one client's
 * create call until another client's child watch fires (what a lingering owner needs to
 * notice the visitor), and the time of a synchronous delete of an ephemeral node (what it
 * then needs to get out of the way). The visitor samples them once a period, so that they
 * are measured under the same load of server and machine as the waits they are compared
 * with; they are also measured on the quiet server before the runs, for reference.
 *
 * <p>
 * A control run (full mode only) starts the same two JVMs with an owner whose thread
 * spins through the same loop without any lock: the hand-over probe through its JVM
 * ({@link LingerWorker#handOver}) then shows what a JVM with one busy thread costs a bare
 * ZooKeeper client's notification and delete, with no lock in the JVM at all.
 *
 * <p>
 * Every hold of both JVMs is recorded; overlapping holds, or a fencing token that does
 * not increase from one JVM's hold to the next JVM's, are correctness failures (not
 * checked in the control run, whose owner holds nothing).
 */
final class LingerScenario {

	static final String TITLE = "Scenario 5: one JVM re-locks its key in a loop while another visits it now and then";

	static final String BASELINE_TITLE = "Scenario 5: one notification + one delete on the quiet server, for reference";

	static final String CURATOR = "curator";

	static final String UNLINGERED = "zklock-0";

	static final String LINGERED = "zklock";

	/**
	 * The control run: the owner's thread loops without any lock.
	 */
	static final String SPINNER = "spin";

	/**
	 * The owner's busy spin while holding: a few microseconds of work.
	 */
	private static final long WORK_MICROS = 5;

	/**
	 * The visitor's hold; longer than {@link LingerWorker#SPAN_GAP_NANOS} (see there).
	 */
	private static final long HOLD_MICROS = 1_000;

	private static final long VISITOR_WAIT_MS = 5_000;

	private LingerScenario() {
	}

	/**
	 * The sizes, from {@code bench.linger}, {@code bench.visitEvery} and
	 * {@code bench.cellSeconds}, by default those of the mode.
	 *
	 * @param linger the owner's linger in the zk-lock run with linger
	 * @param visitEvery the visitor's period
	 * @param cellSeconds measured time per run
	 * @param samples notification and delete samples for the budget
	 * @param smoke whether to run only the Curator run and the run with linger, workers
	 * with C1 only
	 */
	record Sizes(Duration linger, Duration visitEvery, double cellSeconds, int samples, boolean smoke) {

		static Sizes of(boolean smoke) {
			return new Sizes(duration(MultiJvmScenario.Sizes.property("bench.linger", "500ms")),
					duration(MultiJvmScenario.Sizes.property("bench.visitEvery", smoke ? "100ms" : "200ms")),
					Double.parseDouble(MultiJvmScenario.Sizes.property("bench.cellSeconds", smoke ? "1.5" : "10")),
					smoke ? 30 : 300, smoke);
		}

		/**
		 * {@code 500ms}, {@code 2s} or a bare number of milliseconds.
		 */
		static Duration duration(String text) {
			Matcher matcher = Pattern.compile("(\\d+)\\s*(ms|s)?").matcher(text.trim());
			if (!matcher.matches()) {
				throw new IllegalArgumentException("Not a duration (500ms, 2s): " + text);
			}
			long value = Long.parseLong(matcher.group(1));
			return "s".equals(matcher.group(2)) ? Duration.ofSeconds(value) : Duration.ofMillis(value);
		}

		List<String> runs() {
			return this.smoke ? List.of(CURATOR, LINGERED) : List.of(CURATOR, UNLINGERED, LINGERED, SPINNER);
		}

		String label(String run) {
			return switch (run) {
				case CURATOR -> "owner: Curator InterProcessMutex";
				case UNLINGERED -> "owner: zk-lock, no linger";
				case SPINNER -> "control: the owner's thread spins through the same loop with no lock";
				default -> "owner: zk-lock, linger " + this.linger.toMillis() + " ms";
			};
		}

	}

	/**
	 * Medians and 99th percentiles in nanoseconds of the budget's two parts.
	 *
	 * @param notificationP50 median time from a create call to another client's watch
	 * @param notificationP99 its 99th percentile
	 * @param deleteP50 median synchronous delete
	 * @param deleteP99 its 99th percentile
	 * @param samples samples of each
	 */
	record Budget(long notificationP50, long notificationP99, long deleteP50, long deleteP99, int samples) {

		static Budget of(List<Long> notifications, List<Long> deletes) {
			List<Long> n = notifications.stream().sorted().toList();
			List<Long> d = deletes.stream().sorted().toList();
			return new Budget(CellResult.percentile(n, 0.50), CellResult.percentile(n, 0.99),
					CellResult.percentile(d, 0.50), CellResult.percentile(d, 0.99), n.size());
		}

		long p50() {
			return this.notificationP50 + this.deleteP50;
		}

		long p99() {
			return this.notificationP99 + this.deleteP99;
		}

	}

	/**
	 * One run.
	 *
	 * @param cycles the owner's cycles
	 * @param reused cycles with the token of the cycle before (zk-lock owners only)
	 * @param meanCost mean nanoseconds in lock + unlock per cycle
	 * @param p50Cost median of those
	 * @param p99Cost 99th percentile of those
	 * @param requestsPerCycle requests the server received during the run (from every
	 * client) per owner cycle
	 * @param waits the visitor's sorted waits on the owner's key
	 * @param freeWaits the visitor's sorted waits on the free key
	 * @param timeouts the visitor's visits that did not get the lock
	 * @param budget one notification + one delete, sampled by the visitor during the run
	 * @param handOvers the same two steps through the owner's JVM, sorted
	 * ({@link LingerWorker#handOver})
	 * @param violations overlapping holds and fencing tokens out of order
	 */
	record Run(long cycles, long reused, long meanCost, long p50Cost, long p99Cost, double requestsPerCycle,
			List<Long> waits, List<Long> freeWaits, int timeouts, Budget budget, List<Long> handOvers, int violations) {

		long p50() {
			return CellResult.percentile(this.waits, 0.50);
		}

		long p99() {
			return CellResult.percentile(this.waits, 0.99);
		}

		long freeP50() {
			return CellResult.percentile(this.freeWaits, 0.50);
		}

		long freeP99() {
			return CellResult.percentile(this.freeWaits, 0.99);
		}

	}

	/**
	 * What the scenario measured, for its goals.
	 *
	 * @param sizes the sizes
	 * @param quiet the notification and delete latencies on the quiet server
	 * @param runs the runs that finished, by {@link #CURATOR}, {@link #UNLINGERED},
	 * {@link #LINGERED}, {@link #SPINNER}
	 */
	record Result(Sizes sizes, Budget quiet, Map<String, Run> runs) {
	}

	static Result run(ExternalZooKeeper zk, Sizes sizes, Path workDir, Report report) throws Exception {
		report.table(BASELINE_TITLE, "latency", "p50 (ms)", "p99 (ms)", "samples");
		report.table(TITLE, "run", "owner µs per cycle (mean)", "owner µs per cycle (p50 / p99)", "owner cycles",
				"cycles on the node of the cycle before", "ZooKeeper requests per owner cycle (all clients)",
				"visitor wait p50 / p99 (ms)", "visitor wait on a free key p50 / p99 (ms)",
				"visits: owner's key / free key (timeouts)", "budget in the run: notification + delete p50 / p99 (ms)",
				"the same through the owner's JVM p50 / p99 (ms)", "violations");
		Budget budget = budget(zk, sizes.samples(), report);
		Map<String, Run> runs = new LinkedHashMap<>();
		for (String name : sizes.runs()) {
			Run run = runOne(zk, name, sizes, workDir, report);
			if (run != null) {
				runs.put(name, run);
			}
		}
		return new Result(sizes, budget, runs);
	}

	/**
	 * Measure the budget on the quiet server, before the runs.
	 */
	private static Budget budget(ExternalZooKeeper zk, int samples, Report report) throws Exception {
		List<Long> notifications = new ArrayList<>();
		List<Long> deletes = new ArrayList<>();
		try (CuratorFramework watching = zk.newClient(); CuratorFramework writing = zk.newClient()) {
			ZooKeeper watcher = watching.getZookeeperClient().getZooKeeper();
			ZooKeeper writer = writing.getZookeeperClient().getZooKeeper();
			// The first samples warm up both JVM sides and are not kept
			int warmUp = Math.max(10, samples / 10);
			for (int i = 0; i < warmUp + samples; i++) {
				long[] sample = LingerWorker.probe(watcher, writer);
				if (i >= warmUp) {
					notifications.add(sample[0]);
					deletes.add(sample[1]);
				}
			}
		}
		Budget budget = Budget.of(notifications, deletes);
		report.row(BASELINE_TITLE, "notification: create call → another client's child watch",
				CellResult.ms(budget.notificationP50()), CellResult.ms(budget.notificationP99()),
				Integer.toString(samples));
		report.row(BASELINE_TITLE, "delete: synchronous delete of an ephemeral node", CellResult.ms(budget.deleteP50()),
				CellResult.ms(budget.deleteP99()), Integer.toString(samples));
		report.row(BASELINE_TITLE, "notification + delete", CellResult.ms(budget.p50()), CellResult.ms(budget.p99()),
				Integer.toString(samples));
		return budget;
	}

	private static @Nullable Run runOne(ExternalZooKeeper zk, String name, Sizes sizes, Path workDir, Report report)
			throws Exception {
		String label = sizes.label(name);
		Path ownerOut = workDir.resolve("linger-" + name + "-owner.csv");
		Path visitorOut = workDir.resolve("linger-" + name + "-visitor.csv");
		List<Path> outputs = List.of(ownerOut, visitorOut);
		List<Process> workers = new ArrayList<>();
		long launched = System.nanoTime();
		try {
			String implementation = switch (name) {
				case CURATOR, SPINNER -> name;
				default -> "zklock";
			};
			long linger = name.equals(LINGERED) ? sizes.linger().toMillis() : 0;
			workers.add(MultiJvmScenario.launch(
					List.of(LingerWorker.OWNER, zk.connectString(), ownerOut.toString(), implementation,
							Long.toString(linger), Long.toString(WORK_MICROS), sizes.smoke() ? "10" : "200"),
					ownerOut, sizes.smoke()));
			workers.add(MultiJvmScenario.launch(List.of(LingerWorker.VISITOR, zk.connectString(), visitorOut.toString(),
					Long.toString(sizes.visitEvery().toMillis()), Long.toString(HOLD_MICROS),
					Long.toString(VISITOR_WAIT_MS)), visitorOut, sizes.smoke()));
			if (MultiJvmScenario.awaitReady(workers, outputs) == null) {
				report.failure(label + ": worker JVMs not ready within " + MultiJvmScenario.READY_TIMEOUT_MS / 1000
						+ " s; see " + workDir.resolve("linger-" + name + "-*.csv.log"));
				return null;
			}
			System.out.println("  " + label + ": workers ready after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launched) + " ms");
			long packetsBefore = zk.packetsReceived();
			long start = MultiJvmScenario.go(workers, sizes.cellSeconds());
			long end = start + (long) (sizes.cellSeconds() * 1e9);
			MultiJvmScenario.awaitExit(workers, outputs, end, label, report);
			long packets = zk.packetsReceived() - packetsBefore;
			Run run = read(ownerOut, visitorOut, packets, !name.equals(SPINNER), label, report);
			report(label, name, run, report);
			return run;
		}
		catch (IOException | RuntimeException ex) {
			report.failure(label + ": " + ex);
			return null;
		}
		finally {
			MultiJvmScenario.cleanUp(workers, outputs);
		}
	}

	/**
	 * Read both workers' files and, if {@code checkHolds}, check the holds and count the
	 * violations into the report.
	 */
	private static Run read(Path ownerOut, Path visitorOut, long packets, boolean checkHolds, String label,
			Report report) throws IOException {
		// A hold: token, entered, exited, JVM (0 the owner, 1 the visitor)
		List<long[]> holds = new ArrayList<>();
		long[] owner = { 0, 0, -1, -1, -1 };
		for (String line : Files.readAllLines(ownerOut)) {
			String[] parts = line.split(",");
			if (parts[0].equals("owner")) {
				for (int i = 0; i < owner.length; i++) {
					owner[i] = Long.parseLong(parts[i + 1]);
				}
			}
			else {
				holds.add(
						new long[] { Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]), 0 });
			}
		}
		List<Long> waits = new ArrayList<>();
		List<Long> freeWaits = new ArrayList<>();
		List<Long> notifications = new ArrayList<>();
		List<Long> deletes = new ArrayList<>();
		List<Long> handOvers = new ArrayList<>();
		int timeouts = 0;
		for (String line : Files.readAllLines(visitorOut)) {
			String[] parts = line.split(",");
			if (parts[0].equals("probe")) {
				notifications.add(Long.parseLong(parts[1]));
				deletes.add(Long.parseLong(parts[2]));
				continue;
			}
			if (parts[0].equals("hand-over")) {
				handOvers.add(Long.parseLong(parts[1]));
				continue;
			}
			boolean free = parts[1].equals(LingerWorker.FREE_KEY);
			if (parts[0].equals("timeout")) {
				timeouts++;
				continue;
			}
			long requested = Long.parseLong(parts[2]);
			long entered = Long.parseLong(parts[3]);
			(free ? freeWaits : waits).add(entered - requested);
			if (!free) {
				holds.add(new long[] { Long.parseLong(parts[5]), entered, Long.parseLong(parts[4]), 1 });
			}
		}
		waits.sort(Long::compare);
		freeWaits.sort(Long::compare);
		handOvers.sort(Long::compare);
		if (!checkHolds) {
			holds.clear();
		}
		holds.sort(Comparator.comparingLong((long[] hold) -> hold[1]));
		int overlaps = 0;
		int fencing = 0;
		long latestEnd = Long.MIN_VALUE;
		long[] previous = null;
		for (long[] hold : holds) {
			// Against the latest end so far, as in scenario 3
			if (hold[1] < latestEnd) {
				overlaps++;
			}
			latestEnd = Math.max(latestEnd, hold[2]);
			// Curator's holds have no token (0): only zk-lock's are compared
			if (previous != null && hold[0] != 0 && previous[0] != 0
					&& (hold[0] < previous[0] || (hold[0] == previous[0] && hold[3] != previous[3]))) {
				fencing++;
			}
			if (hold[0] != 0) {
				previous = hold;
			}
		}
		if (overlaps > 0) {
			report.failure(label + ": " + overlaps + " overlapping holds");
		}
		if (fencing > 0) {
			report.failure(
					label + ": " + fencing + " holds whose fencing token did not increase after another JVM's hold");
		}
		return new Run(owner[0], owner[1], owner[2], owner[3], owner[4],
				(owner[0] == 0) ? -1 : packets / (double) owner[0], waits, freeWaits, timeouts,
				Budget.of(notifications, deletes), handOvers, overlaps + fencing);
	}

	private static void report(String label, String name, Run run, Report report) {
		report.row(TITLE, label, micros(run.meanCost()), micros(run.p50Cost()) + " / " + micros(run.p99Cost()),
				Long.toString(run.cycles()), switch (name) {
					case CURATOR -> "– (no token)";
					case SPINNER -> "– (no lock)";
					default ->
						run.reused() + " (" + Report.fixed(100.0 * run.reused() / Math.max(1, run.cycles()), 1) + " %)";
				}, Report.fixed(run.requestsPerCycle(), 4), CellResult.ms(run.p50()) + " / " + CellResult.ms(run.p99()),
				CellResult.ms(run.freeP50()) + " / " + CellResult.ms(run.freeP99()),
				run.waits().size() + " / " + run.freeWaits().size() + " (" + run.timeouts() + ")",
				CellResult.ms(run.budget().p50()) + " / " + CellResult.ms(run.budget().p99()),
				CellResult.ms(CellResult.percentile(run.handOvers(), 0.50)) + " / "
						+ CellResult.ms(CellResult.percentile(run.handOvers(), 0.99)),
				name.equals(SPINNER) ? "– (no lock)" : Integer.toString(run.violations()));
	}

	private static String micros(long nanos) {
		return (nanos < 0) ? "–" : Report.fixed(nanos / 1000.0, 1);
	}

	/**
	 * Scenario 5's goals (issue 16): with linger, the owner's cycle costs at most 0.05 ×
	 * Curator's, and the visitor waits at most one notification + one delete longer than
	 * on a free key.
	 */
	static void goals(@Nullable Result result, Report report) {
		if (result == null) {
			return;
		}
		Run ours = result.runs().get(LINGERED);
		Run curator = result.runs().get(CURATOR);
		String linger = "linger " + result.sizes().linger().toMillis() + " ms";
		String cost = "S5: zk-lock with " + linger + " ≤ 0.05 × Curator's cost per owner cycle";
		if (ours == null || curator == null || ours.cycles() == 0 || curator.cycles() == 0) {
			report.goal(cost, false, "not measured (a run did not finish)");
		}
		else {
			double ratio = ours.meanCost() / (double) curator.meanCost();
			report.goal(cost, ratio <= 0.05,
					micros(ours.meanCost()) + " µs vs " + micros(curator.meanCost()) + " µs (ratio "
							+ Report.fixed(ratio, 4) + "); " + ours.reused() + " of " + ours.cycles()
							+ " cycles on the node of the cycle before, " + Report.fixed(ours.requestsPerCycle(), 4)
							+ " requests per cycle");
		}
		String wait = "S5: the visitor's extra wait while the owner lingers ≤ one notification + one delete (p50)";
		if (ours == null || ours.waits().isEmpty() || ours.freeWaits().isEmpty() || ours.budget().samples() == 0) {
			report.goal(wait, false, "not measured (a run did not finish)");
			return;
		}
		Budget budget = ours.budget();
		Budget quiet = result.quiet();
		Run control = result.runs().get(SPINNER);
		String controlled = (control == null || control.handOvers().isEmpty()) ? ""
				: "; through a JVM whose thread spins with no lock at all (control) "
						+ CellResult.ms(CellResult.percentile(control.handOvers(), 0.50)) + " ms (budget there "
						+ CellResult.ms(control.budget().p50()) + " ms)";
		long extraP50 = ours.p50() - ours.freeP50();
		long extraP99 = ours.p99() - ours.freeP99();
		report.goal(wait, extraP50 <= budget.p50() && ours.timeouts() == 0,
				"p50 " + CellResult.ms(ours.p50()) + " − " + CellResult.ms(ours.freeP50()) + " on a free key = "
						+ Report.fixed(extraP50 / 1e6, 2) + " ms vs " + CellResult.ms(budget.p50()) + " ms ("
						+ CellResult.ms(budget.notificationP50()) + " + " + CellResult.ms(budget.deleteP50())
						+ ", sampled during the run); p99 " + Report.fixed(extraP99 / 1e6, 2) + " ms vs "
						+ CellResult.ms(budget.p99()) + " ms; " + ours.waits().size() + " visits, " + ours.timeouts()
						+ " timed out; on the quiet server notification + delete is " + CellResult.ms(quiet.p50())
						+ " ms (p99 " + CellResult.ms(quiet.p99()) + "); the same two steps through the owner's JVM "
						+ CellResult.ms(CellResult.percentile(ours.handOvers(), 0.50)) + " ms" + controlled
						+ " (not judged)");
	}

}
