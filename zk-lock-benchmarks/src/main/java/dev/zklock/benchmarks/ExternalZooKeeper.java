package dev.zklock.benchmarks;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

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

	/**
	 * Times the server has forced its transaction log to disk so far
	 * ({@code zk_cnt_fsynctime}): one per batch of writes, so fewer than the writes when
	 * several arrive together.
	 */
	long fsyncs() {
		return this.server.mntr().getOrDefault("zk_cnt_fsynctime", -1L);
	}

	/**
	 * A started client of this server, connected; the caller closes it.
	 */
	CuratorFramework newClient() throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.newClient(connectString(), 30_000, 15_000,
				new ExponentialBackoffRetry(100, 3));
		client.start();
		if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Not connected to " + connectString() + " within 60 s");
		}
		return client;
	}

	@Override
	public void close() {
		this.server.close();
	}

}
