package dev.zklock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A real three-server ZooKeeper ensemble ({@code QuorumPeerMain}, each server in its own
 * JVM, loopback, fsync on), for scenario 3: with a quorum every write is a proposal the
 * leader must have acknowledged by a follower before it commits, and clients connect to
 * different servers, as in production, where a single standalone server would flatter
 * every recipe alike.
 */
final class ZooKeeperEnsemble implements AutoCloseable {

	static final int SIZE = 3;

	private final Path root;

	private final List<ZooKeeperProcess> servers = new ArrayList<>();

	ZooKeeperEnsemble() throws Exception {
		this.root = Files.createTempDirectory("zk-lock-bench-ensemble");
		List<Integer> clientPorts = new ArrayList<>();
		List<String> peers = new ArrayList<>();
		for (int id = 1; id <= SIZE; id++) {
			clientPorts.add(ZooKeeperProcess.freePort());
			peers.add("server." + id + "=127.0.0.1:" + ZooKeeperProcess.freePort() + ":" + ZooKeeperProcess.freePort());
		}
		try {
			for (int id = 1; id <= SIZE; id++) {
				this.servers.add(ZooKeeperProcess.quorumPeer(this.root.resolve("server" + id), id,
						clientPorts.get(id - 1), peers, "384m"));
			}
			ZooKeeperProcess.awaitAll(this.servers, Duration.ofSeconds(60), "elect a leader with every server serving",
					ZooKeeperEnsemble::formed);
		}
		catch (IOException | RuntimeException | InterruptedException ex) {
			close();
			throw ex;
		}
	}

	private static boolean formed(List<ZooKeeperProcess> servers) {
		List<String> modes = servers.stream().map(ZooKeeperProcess::mode).map(String::valueOf).toList();
		return modes.stream().allMatch((mode) -> mode.equals("leader") || mode.equals("follower"))
				&& modes.stream().filter("leader"::equals).count() == 1;
	}

	/**
	 * Every server, for the log.
	 */
	String connectString() {
		return this.servers.stream().map(ZooKeeperProcess::address).collect(Collectors.joining(","));
	}

	/**
	 * The one server worker {@code j} of a run talks to: the followers in turn, then the
	 * leader (F, F, L, F, ... ), so that every implementation of a cell meets the same
	 * placement. Left to the client's random pick, placement weighs as much as the recipe
	 * on many keys, since a follower's writes take one more hop, to the leader.
	 * @param j the worker's index in its run
	 * @return the server's address
	 */
	String addressFor(int j) {
		List<ZooKeeperProcess> order = new ArrayList<>();
		this.servers.stream().filter((server) -> !"leader".equals(server.mode())).forEach(order::add);
		this.servers.stream().filter((server) -> !order.contains(server)).forEach(order::add);
		return order.get(j % order.size()).address();
	}

	/**
	 * Each server's mode ({@code leader}, {@code follower}, or {@code ?} if it does not
	 * answer) by client port.
	 */
	Map<Integer, String> modes() {
		Map<Integer, String> modes = new HashMap<>();
		for (ZooKeeperProcess server : this.servers) {
			modes.put(server.clientPort(), Objects.requireNonNullElse(server.mode(), "?"));
		}
		return modes;
	}

	/**
	 * The packets the servers have exchanged with clients so far, summed over the
	 * servers, from {@code mntr}.
	 */
	Packets packets() {
		long received = 0;
		long sent = 0;
		for (ZooKeeperProcess server : this.servers) {
			Map<String, Long> values = server.mntr();
			received += values.getOrDefault("zk_packets_received", 0L);
			sent += values.getOrDefault("zk_packets_sent", 0L);
		}
		return new Packets(received, sent);
	}

	/**
	 * Kill every server and delete their directories.
	 */
	@Override
	public void close() {
		this.servers.forEach(ZooKeeperProcess::stop);
		this.servers.forEach(ZooKeeperProcess::close);
		ZooKeeperProcess.deleteRecursively(this.root);
	}

	/**
	 * Client packets counted by the servers: every request is one received, and one reply
	 * sent; the other packets sent are watch events.
	 *
	 * @param received requests from clients
	 * @param sent replies and watch events to clients
	 */
	record Packets(long received, long sent) {

		Packets since(Packets before) {
			return new Packets(this.received - before.received, this.sent - before.sent);
		}

		String perGrant(long grants) {
			double requests = this.received / (double) Math.max(1, grants);
			double events = (this.sent - this.received) / (double) Math.max(1, grants);
			return "per grant " + Report.fixed(requests, 2) + " requests, " + Report.fixed(events, 2) + " watch events";
		}

	}

}
