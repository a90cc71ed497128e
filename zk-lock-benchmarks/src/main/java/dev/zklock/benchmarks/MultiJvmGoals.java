package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

import org.jspecify.annotations.Nullable;

import dev.zklock.benchmarks.MultiJvmScenario.Cell;

/**
 * Scenario 3's goals (issue 16), from the cells of one run. The published sizes are 4
 * JVMs and 64 keys; with other sizes a goal uses the largest measured and says so, and a
 * goal whose cells did not run is a MISS that says "not measured".
 */
final class MultiJvmGoals {

	private static final int JVMS = 4;

	private static final int KEYS = 64;

	private final Map<Cell, CellResult> results;

	private final Report report;

	private final SortedSet<Integer> jvms = new TreeSet<>();

	private final SortedSet<Integer> keys = new TreeSet<>();

	private MultiJvmGoals(Map<Cell, CellResult> results, Report report) {
		this.results = results;
		this.report = report;
		results.keySet().forEach((cell) -> {
			this.jvms.add(cell.jvms());
			this.keys.add(cell.keys());
		});
	}

	static void check(Map<Cell, CellResult> results, Report report) {
		if (!results.isEmpty()) {
			new MultiJvmGoals(results, report).check();
		}
	}

	private void check() {
		int jvms = this.jvms.contains(JVMS) ? JVMS : this.jvms.last();
		int keys = this.keys.contains(KEYS) ? KEYS : this.keys.last();
		String floorCell = cell(jvms, keys)
				+ ((jvms == JVMS && keys == KEYS) ? "" : " (" + cell(JVMS, KEYS) + " not run: the largest measured)");
		CellResult ours = get("zklock", jvms, keys);
		CellResult floor = get("raw", jvms, keys);
		this.report.goal("S3 " + floorCell + ": zk-lock ≥ 0.7 × raw floor (create + delete pairs/s)",
				ours != null && floor != null && ours.throughput() >= 0.7 * floor.throughput(),
				(ours == null || floor == null) ? "not measured" : Report.fixed(ours.throughput(), 0) + " vs "
						+ Report.fixed(floor.throughput(), 0) + " per s (ratio " + ratio(ours, floor) + ")");
		versusCurator("S3: zk-lock grants/s ≥ Curator in every cell", this.keys, 1.0);
		versusCurator("S3: zk-lock ≥ 5 × Curator on one key (each J)", new TreeSet<>(List.of(1)), 5.0);
		int fairJvms = this.jvms.contains(JVMS) ? JVMS : this.jvms.last();
		for (int k : this.keys) {
			fairness(fairJvms, k);
		}
		p99();
	}

	private void versusCurator(String description, SortedSet<Integer> keyCounts, double factor) {
		againstCurator(description, keyCounts, (ours, curator) -> ours.throughput() >= factor * curator.throughput(),
				(ours, curator) -> Report.fixed(ours.throughput(), 0) + " vs " + Report.fixed(curator.throughput(), 0)
						+ " (" + ratio(ours, curator) + "×)");
	}

	/**
	 * One goal met when zk-lock's cell compares well with Curator's in every cell.
	 */
	private void againstCurator(String description, SortedSet<Integer> keyCounts,
			BiPredicate<CellResult, CellResult> meets, BiFunction<CellResult, CellResult, String> detail) {
		List<String> details = new ArrayList<>();
		boolean met = true;
		for (int j : this.jvms) {
			for (int k : keyCounts) {
				CellResult ours = get("zklock", j, k);
				CellResult curator = get("curator", j, k);
				if (ours == null || curator == null) {
					met = false;
					details.add(cell(j, k) + " not measured");
					continue;
				}
				met &= meets.test(ours, curator);
				details.add(cell(j, k) + " " + detail.apply(ours, curator));
			}
		}
		this.report.goal(description, met, String.join("; ", details));
	}

	private void fairness(int jvms, int keys) {
		String description = "S3 " + cell(jvms, keys) + ": every JVM's zk-lock share within ±25 % of fair ("
				+ Report.fixed(75.0 / jvms, 1) + "–" + Report.fixed(125.0 / jvms, 1) + " %)"
				+ ((jvms == JVMS) ? "" : " (" + JVMS + " JVMs not run: the largest measured)");
		CellResult ours = get("zklock", jvms, keys);
		if (ours == null) {
			this.report.goal(description, false, "not measured");
			return;
		}
		List<Double> shares = ours.shares();
		boolean fair = shares.size() == jvms
				&& shares.stream().allMatch((share) -> share >= 0.75 / jvms && share <= 1.25 / jvms);
		this.report.goal(description, fair, CellResult.percents(shares));
	}

	private void p99() {
		againstCurator("S3: zk-lock p99 wait ≤ Curator's p99 wait in every cell", this.keys,
				(ours, curator) -> ours.p99() <= curator.p99(),
				(ours, curator) -> CellResult.ms(ours.p99()) + " vs " + CellResult.ms(curator.p99()) + " ms");
	}

	private @Nullable CellResult get(String implementation, int jvms, int keys) {
		return this.results.get(new Cell(implementation, jvms, keys));
	}

	private static String ratio(CellResult ours, CellResult theirs) {
		return (theirs.throughput() == 0) ? "∞" : Report.fixed(ours.throughput() / theirs.throughput(), 2);
	}

	private static String cell(int jvms, int keys) {
		return jvms + ((jvms == 1) ? " JVM" : " JVMs") + " × " + keys + ((keys == 1) ? " key" : " keys");
	}

}
