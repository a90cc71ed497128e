package dev.zklock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 3: J JVMs × T threads on 1 key and on 64 keys for a fixed time. Throughput,
 * p50 and p99 wait, each JVM's share of grants, and violations (overlapping holds of a
 * key).
 */
final class MultiJvmScenario {

	static final String TITLE = "Scenario 3: J JVMs × T threads, fixed duration";

	private MultiJvmScenario() {
	}

	/**
	 * Result of one run.
	 *
	 * @param throughput grants per second
	 * @param shares each JVM's share of the grants
	 */
	record Run(double throughput, List<Double> shares) {
	}

	static Map<String, Run> run(ExternalZooKeeper zk, List<Integer> jvmCounts, List<Integer> keyCounts, int threads,
			long durationMs, Path workDir, Report report) throws Exception {
		report.table(TITLE, "run", "grants/s", "p50 wait (ms)", "p99 wait (ms)", "share per JVM", "violations");
		Map<String, Run> results = new HashMap<>();
		List<String[]> runs = new ArrayList<>();
		for (int jvms : jvmCounts) {
			for (int keys : keyCounts) {
				runs.add(new String[] { "zklock", Integer.toString(jvms), Integer.toString(keys) });
			}
		}
		runs.add(new String[] { "curator", Integer.toString(jvmCounts.get(0)), "1" });
		for (String[] spec : runs) {
			String label = (spec[0].equals("zklock") ? "zk-lock" : "Curator, mutex per thread") + ", " + spec[1]
					+ " JVMs × " + threads + " threads, " + spec[2] + (spec[2].equals("1") ? " key" : " keys");
			Run run = runOnce(zk, spec[0], Integer.parseInt(spec[1]), Integer.parseInt(spec[2]), threads, durationMs,
					workDir, label, report);
			results.put(spec[0] + ":" + spec[1] + ":" + spec[2], run);
		}
		return results;
	}

	private static Run runOnce(ExternalZooKeeper zk, String implementation, int jvms, int keys, int threads,
			long durationMs, Path workDir, String label, Report report) throws Exception {
		long startAt = System.currentTimeMillis() + 4_000;
		List<Process> processes = new ArrayList<>();
		List<Path> outputs = new ArrayList<>();
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		for (int j = 0; j < jvms; j++) {
			Path out = workDir.resolve(implementation + "-" + jvms + "-" + keys + "-jvm" + j + ".csv");
			outputs.add(out);
			processes.add(new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
					MultiJvmWorker.class.getName(), implementation, zk.connectString(), Integer.toString(keys),
					Integer.toString(threads), Long.toString(startAt), Long.toString(durationMs), "jvm" + j,
					out.toString())
				.redirectErrorStream(true)
				.redirectOutput(workDir.resolve(out.getFileName() + ".log").toFile())
				.start());
		}
		for (Process process : processes) {
			if (!process.waitFor(durationMs + 120_000, TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				report.failure(label + ": a worker JVM failed or hung");
			}
		}
		Map<String, List<long[]>> byKey = new HashMap<>();
		List<Long> waits = new ArrayList<>();
		Map<String, Integer> perJvm = new TreeMap<>();
		int grants = 0;
		for (Path output : outputs) {
			if (!Files.exists(output)) {
				continue;
			}
			for (String line : Files.readAllLines(output)) {
				String[] parts = line.split(",");
				long requested = Long.parseLong(parts[1]);
				long entered = Long.parseLong(parts[2]);
				long exited = Long.parseLong(parts[3]);
				byKey.computeIfAbsent(parts[0], (k) -> new ArrayList<>()).add(new long[] { entered, exited });
				waits.add(entered - requested);
				perJvm.merge(parts[4], 1, Integer::sum);
				grants++;
			}
		}
		int violations = 0;
		for (List<long[]> intervals : byKey.values()) {
			intervals.sort(Comparator.comparingLong((long[] interval) -> interval[0]));
			for (int i = 1; i < intervals.size(); i++) {
				if (intervals.get(i)[0] < intervals.get(i - 1)[1]) {
					violations++;
				}
			}
		}
		if (violations > 0) {
			report.failure(label + ": " + violations + " overlapping holds");
		}
		waits.sort(Long::compare);
		double throughput = grants * 1000.0 / durationMs;
		List<Double> shares = new ArrayList<>();
		int total = grants;
		perJvm.values().forEach((count) -> shares.add(total == 0 ? 0 : count / (double) total));
		report.row(TITLE, label, Report.fixed(throughput, 0), percentile(waits, 0.50), percentile(waits, 0.99),
				String.join(" / ", shares.stream().map((share) -> Report.fixed(share * 100, 0) + " %").toList()),
				Integer.toString(violations));
		return new Run(throughput, shares);
	}

	private static String percentile(List<Long> sorted, double quantile) {
		if (sorted.isEmpty()) {
			return "–";
		}
		int index = (int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1);
		return Report.fixed(sorted.get(Math.max(0, index)) / 1_000_000.0, 2);
	}

}
