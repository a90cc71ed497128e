package dev.zklock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * One ZooKeeper server in its own JVM on loopback, and the four-letter words the harness
 * asks it. The standalone server of scenarios 1, 2 and 4 and each server of scenario 3's
 * ensemble are started, probed and stopped by this one class, so that the two setups
 * differ only in their {@code zoo.cfg}. The server owns its directory (config, data, log)
 * and deletes it on close.
 */
final class ZooKeeperProcess implements AutoCloseable {

	private final Process process;

	private final int clientPort;

	private final Path dir;

	private ZooKeeperProcess(String mainClass, Path dir, int clientPort, List<String> extraConfig, String maxHeap)
			throws IOException {
		this.dir = dir;
		this.clientPort = clientPort;
		Path data = dir.resolve("data");
		Files.createDirectories(data);
		List<String> config = new ArrayList<>(
				List.of("tickTime=2000", "dataDir=" + data, "clientPort=" + clientPort, "clientPortAddress=127.0.0.1",
						"admin.enableServer=false", "4lw.commands.whitelist=*", "maxClientCnxns=0"));
		config.addAll(extraConfig);
		Path zooCfg = dir.resolve("zoo.cfg");
		Files.write(zooCfg, config);
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.process = new ProcessBuilder(java, "-Xmx" + maxHeap, "-cp", System.getProperty("java.class.path"),
				"-Dzookeeper.jmx.log4j.disable=true", mainClass, zooCfg.toString())
			.redirectErrorStream(true)
			.redirectOutput(log().toFile())
			.start();
	}

	/**
	 * A standalone server ({@code ZooKeeperServerMain}).
	 */
	static ZooKeeperProcess standalone(Path dir, String maxHeap) throws IOException {
		return new ZooKeeperProcess("org.apache.zookeeper.server.ZooKeeperServerMain", dir, freePort(),
				fsync() ? List.of() : List.of("forceSync=no"), maxHeap);
	}

	/**
	 * Whether the standalone server syncs its log to disk per write batch, as in
	 * production ({@code -Dbench.fsync=false} turns it off, to tell the disk's share of a
	 * cycle from the engine's).
	 */
	static boolean fsync() {
		return Boolean.parseBoolean(System.getProperty("bench.fsync", "true"));
	}

	/**
	 * One peer of an ensemble ({@code QuorumPeerMain}); {@code servers} are the
	 * {@code server.N=host:quorumPort:electionPort} lines of every peer.
	 */
	static ZooKeeperProcess quorumPeer(Path dir, int myid, int clientPort, List<String> servers, String maxHeap)
			throws IOException {
		Files.createDirectories(dir.resolve("data"));
		Files.writeString(dir.resolve("data").resolve("myid"), Integer.toString(myid));
		List<String> config = new ArrayList<>(List.of("initLimit=10", "syncLimit=5", "forceSync=yes"));
		config.addAll(servers);
		return new ZooKeeperProcess("org.apache.zookeeper.server.quorum.QuorumPeerMain", dir, clientPort, config,
				maxHeap);
	}

	/**
	 * Wait until the servers satisfy {@code ready}; if one dies or time runs out, throw
	 * with the end of each server's log (the caller closes them).
	 */
	static void awaitAll(List<ZooKeeperProcess> servers, Duration timeout, String what,
			Predicate<List<ZooKeeperProcess>> ready) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!ready.test(servers)) {
			if (System.nanoTime() > deadline || servers.stream().anyMatch((server) -> !server.process.isAlive())) {
				StringBuilder logs = new StringBuilder();
				for (ZooKeeperProcess server : servers) {
					logs.append("\n--- ").append(server.address()).append(":\n").append(server.logTail(15));
				}
				throw new IllegalStateException("ZooKeeper did not " + what + " within " + timeout + logs);
			}
			Thread.sleep(100);
		}
	}

	String address() {
		return "127.0.0.1:" + this.clientPort;
	}

	int clientPort() {
		return this.clientPort;
	}

	boolean answersRuok() {
		return "imok".equals(fourLetterWord("ruok").trim());
	}

	/**
	 * The {@code Mode:} line of {@code srvr} ({@code standalone}, {@code leader},
	 * {@code follower}), or null while the server does not serve.
	 */
	@Nullable String mode() {
		return fourLetterWord("srvr").lines()
			.filter((line) -> line.startsWith("Mode: "))
			.map((line) -> line.substring("Mode: ".length()).trim())
			.findFirst()
			.orElse(null);
	}

	Map<String, Long> mntr() {
		Map<String, Long> values = new HashMap<>();
		for (String line : fourLetterWord("mntr").split("\n")) {
			String[] parts = line.split("\t");
			if (parts.length == 2) {
				try {
					values.put(parts[0], Long.parseLong(parts[1].trim()));
				}
				catch (NumberFormatException ex) {
					// not a number
				}
			}
		}
		return values;
	}

	/**
	 * The server's answer, or {@code ""} if it does not answer (yet).
	 */
	String fourLetterWord(String word) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.clientPort), 1_000);
			socket.setSoTimeout(5_000);
			OutputStream out = socket.getOutputStream();
			out.write(word.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			StringBuilder sb = new StringBuilder();
			String line;
			while ((line = in.readLine()) != null) {
				sb.append(line).append('\n');
			}
			return sb.toString();
		}
		catch (IOException ex) {
			return "";
		}
	}

	/**
	 * Ask the server to stop (SIGTERM) without waiting, so that an ensemble's servers
	 * stop together.
	 */
	void stop() {
		this.process.destroy();
	}

	/**
	 * Kill the server (SIGTERM, then SIGKILL after 10 s) and delete its directory; never
	 * throws, so that closing one server of an ensemble cannot skip the others.
	 */
	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
		deleteRecursively(this.dir);
	}

	private Path log() {
		return this.dir.resolve("server.log");
	}

	private String logTail(int lines) {
		try {
			List<String> all = Files.readAllLines(log());
			return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
		}
		catch (IOException | UncheckedIOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	static void deleteRecursively(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException | UncheckedIOException ex) {
			// A temporary directory left behind is not worth failing a benchmark for
		}
	}

}
