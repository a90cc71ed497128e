package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Scenario 2: one thread, N uncontended acquire/release cycles. Microseconds per cycle,
 * and ZooKeeper requests and fsyncs per cycle counted by the server
 * ({@code zk_packets_received} and {@code zk_cnt_fsynctime} from {@code mntr}). After the
 * implementations, each round also times the plain cycle on the bare client: what bounds
 * any recipe that writes twice per cycle.
 */
final class LatencyScenario {

	static final String TITLE = "Scenario 2: uncontended acquire + release, one thread";

	static final String SERVER_TITLE = "Scenario 2: the plain cycle on the same server, for reference";

	private static final int ROUNDS = 5;

	private LatencyScenario() {
	}

	/**
	 * Result of one implementation.
	 *
	 * @param micros microseconds per cycle
	 * @param requests ZooKeeper requests per cycle
	 * @param fsyncs times per cycle the server forced its log to disk
	 */
	record Latency(double micros, double requests, double fsyncs) {
	}

	/**
	 * The plain cycle on the server of the run: the three requests of every
	 * Curator-compatible recipe, each waited for before the next, on the bare ZooKeeper
	 * client. Microseconds, each the median of the rounds' means, as the implementations'
	 * cycles.
	 *
	 * @param create a synchronous create of an ephemeral sequential node: a round trip, a
	 * transaction and its fsync
	 * @param list a synchronous {@code getChildren} of its parent: a round trip
	 * @param delete a synchronous delete of the node: as the create
	 * @param cycle the three together
	 */
	record ServerCost(double create, double list, double delete, double cycle) {

		/**
		 * The lowest ratio to the plain cycle that a recipe reaches which still writes
		 * twice per cycle but waits for one round trip only: the list sent with the
		 * create, the delete not waited for. The server still applies the delete before
		 * the next create of the session and forces each to disk, so only the list's and
		 * the delete's round trips go: {@code (C − 2R) / C}.
		 */
		double bestRatioForTwoWrites() {
			return (this.cycle - 2 * this.list) / this.cycle;
		}

	}

	/**
	 * Both results of the scenario.
	 *
	 * @param latencies each implementation's
	 * @param server the server's cost per request, measured between them
	 */
	record Result(Map<String, Latency> latencies, ServerCost server) {
	}

	static Result run(ExternalZooKeeper zk, int cycles, Report report) throws Exception {
		report.table(TITLE, "implementation", "µs per cycle (median of " + ROUNDS + " rounds)",
				"ZooKeeper requests per cycle", "server fsyncs per cycle");
		report.table(SERVER_TITLE, "request (bare ZooKeeper client, each waited for)",
				"µs (median of " + ROUNDS + " rounds' means)", "p99 (µs)", "samples");
		List<String> names = Implementation.selected()
			.stream()
			.filter((name) -> !name.contains("ReentrantLock"))
			.toList();
		List<Implementation> implementations = new ArrayList<>();
		List<List<Long>> plain = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
		List<List<Double>> plainRounds = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
				new ArrayList<>());
		try (CuratorFramework client = zk.newClient()) {
			String probePath = client.create().creatingParentsIfNeeded().forPath("/bench/latency-probe");
			ZooKeeper probe = client.getZookeeperClient().getZooKeeper();
			for (int i = 0; i < names.size(); i++) {
				Implementation implementation = Implementation.create(names.get(i), zk.connectString(),
						"/bench/latency-" + i);
				implementations.add(implementation);
				Contender contender = implementation.contender(0);
				// As many cycles as are measured: a tenth of them left every
				// implementation
				// mostly uncompiled, and timed the JIT more than the recipe (zk-lock's
				// first thousand cycles ran at twice its later pace)
				for (int c = 0; c < cycles; c++) {
					cycle(contender);
				}
			}
			// Rounds interleave the implementations, so a slow spell of the disk hits
			// them all alike
			Map<String, List<Double>> micros = new HashMap<>();
			Map<String, Long> packets = new HashMap<>();
			Map<String, Long> fsyncs = new HashMap<>();
			int perRound = Math.max(1, cycles / ROUNDS);
			for (int round = 0; round < ROUNDS; round++) {
				for (Implementation implementation : implementations) {
					Contender contender = implementation.contender(0);
					long fsyncsBefore = zk.fsyncs();
					long packetsBefore = zk.packetsReceived();
					long start = System.nanoTime();
					for (int c = 0; c < perRound; c++) {
						cycle(contender);
					}
					long nanos = System.nanoTime() - start;
					// Minus the mntr that read the count before
					packets.merge(implementation.name(), zk.packetsReceived() - packetsBefore - 1, Long::sum);
					fsyncs.merge(implementation.name(), zk.fsyncs() - fsyncsBefore, Long::sum);
					micros.computeIfAbsent(implementation.name(), (k) -> new ArrayList<>())
						.add(nanos / 1000.0 / perRound);
				}
				int plainCycles = Math.max(10, perRound / 4);
				long[] sums = new long[plain.size()];
				for (int c = 0; c < plainCycles; c++) {
					plainCycle(probe, probePath, plain, sums);
				}
				for (int i = 0; i < sums.length; i++) {
					plainRounds.get(i).add(sums[i] / 1000.0 / plainCycles);
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
				long forced = Objects.requireNonNull(fsyncs.get(name),
						"every round counts every implementation's fsyncs");
				int total = perRound * ROUNDS;
				Latency latency = new Latency(rounds.get(rounds.size() / 2), (double) sent / total,
						(double) forced / total);
				results.put(name, latency);
				report.row(TITLE, name, Report.fixed(latency.micros(), 0), Report.fixed(latency.requests(), 2),
						Report.fixed(latency.fsyncs(), 2));
			}
			List<String> steps = List.of("create (ephemeral sequential)", "getChildren", "delete",
					"the cycle: create + getChildren + delete");
			double[] medians = new double[steps.size()];
			for (int i = 0; i < steps.size(); i++) {
				List<Long> samples = plain.get(i);
				samples.sort(Long::compare);
				List<Double> rounds = plainRounds.get(i);
				rounds.sort(Double::compare);
				medians[i] = rounds.get(rounds.size() / 2);
				report.row(SERVER_TITLE, steps.get(i), Report.fixed(medians[i], 0),
						Report.fixed(CellResult.percentile(samples, 0.99) / 1000.0, 0),
						Integer.toString(samples.size()));
			}
			return new Result(results, new ServerCost(medians[0], medians[1], medians[2], medians[3]));
		}
		finally {
			for (Implementation implementation : implementations) {
				implementation.close();
			}
		}
	}

	/**
	 * One plain cycle: its three steps' and its own time in nanoseconds, in that order,
	 * into the samples and onto the sums.
	 */
	private static void plainCycle(ZooKeeper zooKeeper, String parent, List<List<Long>> samples, long[] sums)
			throws Exception {
		long start = System.nanoTime();
		String node = zooKeeper.create(parent + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
				CreateMode.EPHEMERAL_SEQUENTIAL);
		long created = System.nanoTime();
		zooKeeper.getChildren(parent, false);
		long listed = System.nanoTime();
		zooKeeper.delete(node, -1);
		long deleted = System.nanoTime();
		long[] times = { created - start, listed - created, deleted - listed, deleted - start };
		for (int i = 0; i < times.length; i++) {
			samples.get(i).add(times[i]);
			sums[i] += times[i];
		}
	}

	private static void cycle(Contender contender) throws Exception {
		contender.lock();
		contender.unlock();
	}

}
