package dev.zklock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A standalone ZooKeeper server ({@code ZooKeeperServerMain}) in its own JVM on loopback,
 * so the server does not share a heap or CPU accounting with the clients measured.
 * Four-letter words are enabled for {@code mntr}, from which request counts are read.
 */
final class ExternalZooKeeper implements AutoCloseable {

	private final Process process;

	private final int port;

	private final Path dataDir;

	ExternalZooKeeper() throws Exception {
		this.port = freePort();
		this.dataDir = Files.createTempDirectory("zk-lock-bench");
		Path config = this.dataDir.resolve("zoo.cfg");
		Files.write(config,
				List.of("tickTime=2000", "dataDir=" + this.dataDir.resolve("data"), "clientPort=" + this.port,
						"clientPortAddress=127.0.0.1", "admin.enableServer=false", "4lw.commands.whitelist=*",
						"maxClientCnxns=0"));
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.process = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
				"-Dzookeeper.jmx.log4j.disable=true", "org.apache.zookeeper.server.ZooKeeperServerMain",
				config.toString())
			.redirectErrorStream(true)
			.redirectOutput(this.dataDir.resolve("server.log").toFile())
			.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!"imok".equals(fourLetterWord("ruok").trim())) {
			if (System.nanoTime() > deadline || !this.process.isAlive()) {
				close();
				throw new IllegalStateException("ZooKeeper did not start; see " + this.dataDir.resolve("server.log"));
			}
			Thread.sleep(100);
		}
	}

	String connectString() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * Requests the server has received so far ({@code zk_packets_received}).
	 */
	long packetsReceived() {
		return mntr().getOrDefault("zk_packets_received", -1L);
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

	private String fourLetterWord(String word) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 1_000);
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

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
