package dev.zklock.benchmarks;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

/**
 * A standalone ZooKeeper server ({@code ZooKeeperServerMain}) in its own JVM on loopback,
 * so the server does not share a heap or CPU accounting with the clients measured.
 * Four-letter words are enabled for {@code mntr}, from which request counts are read.
 */
final class ExternalZooKeeper implements AutoCloseable {

	private final ZooKeeperProcess server;

	ExternalZooKeeper() throws Exception {
		this.server = ZooKeeperProcess.standalone(Files.createTempDirectory("zk-lock-bench"), "1g");
		try {
			ZooKeeperProcess.awaitAll(List.of(this.server), Duration.ofSeconds(30), "answer ruok",
					(servers) -> servers.get(0).answersRuok());
		}
		catch (RuntimeException | InterruptedException ex) {
			this.server.close();
			throw ex;
		}
	}

	String connectString() {
		return this.server.address();
	}

	/**
	 * Requests the server has received so far ({@code zk_packets_received}).
	 */
	long packetsReceived() {
		return this.server.mntr().getOrDefault("zk_packets_received", -1L);
	}

	@Override
	public void close() {
		this.server.close();
	}

}
