package dev.zklock.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario 2: one thread, N uncontended acquire/release cycles. Microseconds per cycle, and
 * ZooKeeper requests per cycle counted by the server ({@code zk_packets_received} from
 * {@code mntr}).
 */
final class LatencyScenario {

	static final String TITLE = "Scenario 2: uncontended acquire + release, one thread";

	private LatencyScenario() {
	}

	/**
	 * Result of one implementation.
	 *
	 * @param micros microseconds per cycle
	 * @param requests ZooKeeper requests per cycle
	 */
	record Latency(double micros, double requests) {
	}

	static Map<String, Latency> run(ExternalZooKeeper zk, int cycles, Report report) throws Exception {
		report.table(TITLE, "implementation", "µs per cycle", "ZooKeeper requests per cycle");
		Map<String, Latency> results = new HashMap<>();
		List<String> names = Implementation.selected().stream().filter((name) -> !name.contains("ReentrantLock")).toList();
		int run = 0;
		for (String name : names) {
			try (Implementation implementation = Implementation.create(name, zk.connectString(),
					"/bench/latency-" + (run++))) {
				Contender contender = implementation.contender(0);
				for (int i = 0; i < Math.max(20, cycles / 10); i++) {
					cycle(contender);
				}
				long packetsBefore = zk.packetsReceived();
				long start = System.nanoTime();
				for (int i = 0; i < cycles; i++) {
					cycle(contender);
				}
				long nanos = System.nanoTime() - start;
				long packets = zk.packetsReceived() - packetsBefore - 1;
				Latency latency = new Latency(nanos / 1000.0 / cycles, (double) packets / cycles);
				results.put(name, latency);
				report.row(TITLE, name, Report.fixed(latency.micros(), 0), Report.fixed(latency.requests(), 2));
			}
		}
		return results;
	}

	private static void cycle(Contender contender) throws Exception {
		contender.lock();
		contender.unlock();
	}

}
