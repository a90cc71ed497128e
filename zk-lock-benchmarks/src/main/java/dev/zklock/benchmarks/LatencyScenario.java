package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Scenario 2: one thread, N uncontended acquire/release cycles. Microseconds per cycle,
 * and ZooKeeper requests per cycle counted by the server ({@code zk_packets_received}
 * from {@code mntr}).
 */
final class LatencyScenario {

	static final String TITLE = "Scenario 2: uncontended acquire + release, one thread";

	private static final int ROUNDS = 5;

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
		report.table(TITLE, "implementation", "µs per cycle (median of " + ROUNDS + " rounds)",
				"ZooKeeper requests per cycle");
		List<String> names = Implementation.selected()
			.stream()
			.filter((name) -> !name.contains("ReentrantLock"))
			.toList();
		List<Implementation> implementations = new ArrayList<>();
		try {
			for (int i = 0; i < names.size(); i++) {
				Implementation implementation = Implementation.create(names.get(i), zk.connectString(),
						"/bench/latency-" + i);
				implementations.add(implementation);
				Contender contender = implementation.contender(0);
				for (int c = 0; c < Math.max(20, cycles / 10); c++) {
					cycle(contender);
				}
			}
			// Rounds interleave the implementations, so a slow spell of the disk hits
			// them all alike
			Map<String, List<Double>> micros = new HashMap<>();
			Map<String, Long> packets = new HashMap<>();
			int perRound = Math.max(1, cycles / ROUNDS);
			for (int round = 0; round < ROUNDS; round++) {
				for (Implementation implementation : implementations) {
					Contender contender = implementation.contender(0);
					long packetsBefore = zk.packetsReceived();
					long start = System.nanoTime();
					for (int c = 0; c < perRound; c++) {
						cycle(contender);
					}
					long nanos = System.nanoTime() - start;
					packets.merge(implementation.name(), zk.packetsReceived() - packetsBefore - 1, Long::sum);
					micros.computeIfAbsent(implementation.name(), (k) -> new ArrayList<>())
						.add(nanos / 1000.0 / perRound);
				}
			}
			Map<String, Latency> results = new HashMap<>();
			for (String name : names) {
				// Every round measured every implementation, so both maps have every name
				List<Double> rounds = Objects.requireNonNull(micros.get(name),
						"every round times every implementation");
				rounds.sort(Double::compare);
				long sent = Objects.requireNonNull(packets.get(name),
						"every round counts every implementation's packets");
				Latency latency = new Latency(rounds.get(rounds.size() / 2), (double) sent / (perRound * ROUNDS));
				results.put(name, latency);
				report.row(TITLE, name, Report.fixed(latency.micros(), 0), Report.fixed(latency.requests(), 2));
			}
			return results;
		}
		finally {
			for (Implementation implementation : implementations) {
				implementation.close();
			}
		}
	}

	private static void cycle(Contender contender) throws Exception {
		contender.lock();
		contender.unlock();
	}

}
