package dev.zklock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one cell of scenario 3 measured, computed from the grants its worker JVMs recorded
 * ({@code key,requested,entered,exited,jvm}, one file per JVM in JVM order). Throughput
 * counts the grants entered between the common start and end; waits, shares and overlaps
 * use every grant, including those the last waiters got after the end.
 *
 * @param throughput grants per second
 * @param p50 median wait in nanoseconds (wait = entered − requested)
 * @param p99 99th percentile wait in nanoseconds
 * @param max longest wait in nanoseconds
 * @param grantsPerJvm grants of each JVM within the measured time
 * @param p99PerJvm each JVM's 99th percentile wait in nanoseconds
 * @param violations holds of a key that began before an earlier hold of it ended
 * @param recorded every grant recorded, including those after the end
 */
record CellResult(double throughput, long p50, long p99, long max, List<Integer> grantsPerJvm, List<Long> p99PerJvm,
		int violations, long recorded) {

	static CellResult read(List<Path> outputs, long start, long end) throws IOException {
		Map<String, List<long[]>> holdsByKey = new HashMap<>();
		List<Long> waits = new ArrayList<>();
		List<Integer> grantsPerJvm = new ArrayList<>();
		List<Long> p99PerJvm = new ArrayList<>();
		long recorded = 0;
		for (Path output : outputs) {
			List<Long> jvmWaits = new ArrayList<>();
			int grants = 0;
			if (Files.exists(output)) {
				for (String line : Files.readAllLines(output)) {
					String[] parts = line.split(",");
					long requested = Long.parseLong(parts[1]);
					long entered = Long.parseLong(parts[2]);
					long exited = Long.parseLong(parts[3]);
					holdsByKey.computeIfAbsent(parts[0], (k) -> new ArrayList<>()).add(new long[] { entered, exited });
					jvmWaits.add(entered - requested);
					recorded++;
					if (entered >= start && entered <= end) {
						grants++;
					}
				}
			}
			jvmWaits.sort(Long::compare);
			waits.addAll(jvmWaits);
			grantsPerJvm.add(grants);
			p99PerJvm.add(percentile(jvmWaits, 0.99));
		}
		waits.sort(Long::compare);
		int total = grantsPerJvm.stream().mapToInt(Integer::intValue).sum();
		return new CellResult(total / ((end - start) / 1e9), percentile(waits, 0.50), percentile(waits, 0.99),
				waits.isEmpty() ? -1 : waits.get(waits.size() - 1), grantsPerJvm, p99PerJvm, overlaps(holdsByKey),
				recorded);
	}

	/**
	 * Each JVM's share of the grants.
	 */
	List<Double> shares() {
		int total = this.grantsPerJvm.stream().mapToInt(Integer::intValue).sum();
		return this.grantsPerJvm.stream().map((count) -> (total == 0) ? 0.0 : count / (double) total).toList();
	}

	private static int overlaps(Map<String, List<long[]>> holdsByKey) {
		int violations = 0;
		for (List<long[]> holds : holdsByKey.values()) {
			holds.sort(Comparator.comparingLong((long[] hold) -> hold[0]));
			// Against the latest end so far, not only the previous hold's: a short hold
			// inside a long one must not hide the overlap of the next
			long latestEnd = Long.MIN_VALUE;
			for (long[] hold : holds) {
				if (hold[0] < latestEnd) {
					violations++;
				}
				latestEnd = Math.max(latestEnd, hold[1]);
			}
		}
		return violations;
	}

	/**
	 * Nearest-rank percentile of sorted values, -1 if there are none.
	 */
	static long percentile(List<Long> sorted, double quantile) {
		if (sorted.isEmpty()) {
			return -1;
		}
		int index = (int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1);
		return sorted.get(Math.max(0, index));
	}

	static String ms(long nanos) {
		return (nanos < 0) ? "–" : Report.fixed(nanos / 1_000_000.0, 2);
	}

	static String joined(List<String> values) {
		return String.join(" / ", values);
	}

	static String percents(List<Double> shares) {
		return joined(shares.stream().map((share) -> Report.fixed(share * 100, 0) + " %").toList());
	}

}
