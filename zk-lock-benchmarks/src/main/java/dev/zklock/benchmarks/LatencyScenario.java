package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 2: one thread, N uncontended acquire/release cycles. Microseconds per cycle,
 * and ZooKeeper requests and fsyncs per cycle counted by the server
 * ({@code zk_packets_received} and {@code zk_cnt_fsynctime} from {@code mntr}). Two
 * cycles on the bare ZooKeeper client, measured the same way, are the references: the
 * three requests one after the other, and the same three with the list sent along with
 * the create and the delete not waited for, the least that any recipe which writes twice
 * per cycle can wait for.
 */
final class LatencyScenario {

	static final String TITLE = "Scenario 2: uncontended acquire + release, one thread";

	/** The three requests, each waited for, on the bare client. */
	static final String BARE = "bare ZooKeeper client: create, getChildren, delete, each waited for (reference)";

	/** The same three, the list sent with the create, the delete not waited for. */
	static final String BARE_PIPELINED = "bare ZooKeeper client: create + getChildren sent together, "
			+ "delete not waited for (the floor of a release that does not wait)";

	private static final int ROUNDS = 5;

	private static final long REPLY_TIMEOUT_SECONDS = 30;

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

	static Map<String, Latency> run(ExternalZooKeeper zk, int cycles, Report report) throws Exception {
		report.table(TITLE, "implementation", "µs per cycle (median of " + ROUNDS + " rounds)",
				"ZooKeeper requests per cycle", "server fsyncs per cycle");
		List<String> names = Implementation.selected()
			.stream()
			.filter((name) -> !name.contains("ReentrantLock"))
			.toList();
		List<Implementation> implementations = new ArrayList<>();
		try (CuratorFramework bareClient = zk.newClient()) {
			Map<String, Contender> contenders = new LinkedHashMap<>();
			for (int i = 0; i < names.size(); i++) {
				Implementation implementation = Implementation.create(names.get(i), zk.connectString(),
						"/bench/latency-" + i);
				implementations.add(implementation);
				contenders.put(names.get(i), implementation.contender(0));
			}
			ZooKeeper bare = bareClient.getZookeeperClient().getZooKeeper();
			contenders.put(BARE, bare(bare, parent(bareClient, "/bench/latency-bare")));
			contenders.put(BARE_PIPELINED, barePipelined(bare, parent(bareClient, "/bench/latency-bare-pipelined")));
			for (Contender contender : contenders.values()) {
				// As many cycles as are measured: a tenth of them left every
				// implementation mostly uncompiled, and timed the JIT more than the
				// recipe (zk-lock's first thousand cycles ran at twice its later pace)
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
				for (Map.Entry<String, Contender> entry : contenders.entrySet()) {
					Contender contender = entry.getValue();
					long fsyncsBefore = zk.fsyncs();
					long packetsBefore = zk.packetsReceived();
					long start = System.nanoTime();
					for (int c = 0; c < perRound; c++) {
						cycle(contender);
					}
					long nanos = System.nanoTime() - start;
					// Minus the mntr that read the count before
					packets.merge(entry.getKey(), zk.packetsReceived() - packetsBefore - 1, Long::sum);
					fsyncs.merge(entry.getKey(), zk.fsyncs() - fsyncsBefore, Long::sum);
					micros.computeIfAbsent(entry.getKey(), (k) -> new ArrayList<>()).add(nanos / 1000.0 / perRound);
				}
			}
			Map<String, Latency> results = new HashMap<>();
			for (String name : contenders.keySet()) {
				// Every round measured every implementation, so every map has every name
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
			return results;
		}
		finally {
			for (Implementation implementation : implementations) {
				implementation.close();
			}
		}
	}

	private static String parent(CuratorFramework client, String path) throws Exception {
		return client.create().creatingParentsIfNeeded().forPath(path);
	}

	/**
	 * The three requests of every Curator-compatible recipe, one after the other.
	 */
	private static Contender bare(ZooKeeper zooKeeper, String parent) {
		String[] node = new String[1];
		return Implementation.of(() -> {
			node[0] = zooKeeper.create(parent + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
					CreateMode.EPHEMERAL_SEQUENTIAL);
			zooKeeper.getChildren(parent, false);
		}, () -> zooKeeper.delete(node[0], -1));
	}

	/**
	 * The same requests sent as zk-lock sends them, with nothing else: the create and the
	 * list together (the session's order puts the node in the list), the delete sent and
	 * not waited for (the session's order applies it before the next create).
	 */
	private static Contender barePipelined(ZooKeeper zooKeeper, String parent) {
		String[] node = new String[1];
		return Implementation.of(() -> {
			CompletableFuture<String> created = new CompletableFuture<>();
			CompletableFuture<@Nullable Void> listed = new CompletableFuture<>();
			zooKeeper.create(parent + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
					(rc, path, ctx, name) -> complete(created, rc, name), null);
			zooKeeper.getChildren(parent, false, (rc, path, ctx, children) -> complete(listed, rc, null), null);
			node[0] = created.get(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
			listed.get(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
		}, () -> zooKeeper.delete(node[0], -1, (rc, path, ctx) -> {
		}, null));
	}

	private static <T extends @Nullable Object> void complete(CompletableFuture<T> future, int rc, T value) {
		if (rc == KeeperException.Code.OK.intValue()) {
			future.complete(value);
		}
		else {
			future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
		}
	}

	private static void cycle(Contender contender) throws Exception {
		contender.lock();
		contender.unlock();
	}

}
