package dev.zklock.core;

import java.io.BufferedReader;
import java.io.File;
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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import dev.zklock.test.InProcessZooKeeper;

/**
 * A standalone ZooKeeper server in a child JVM on loopback, of the version whose jars are
 * given: they replace this JVM's own ZooKeeper jars on the child's class path, whose
 * other entries (Netty, SLF4J, the metrics library) the server also uses. With no jars
 * given, the server is the ZooKeeper this build tests with. Its tick is 200 ms, so
 * clients may ask for sessions of 0.4 to 4 s, as {@link InProcessZooKeeper}'s do.
 */
final class ZooKeeperServerJvm implements AutoCloseable {

	/**
	 * This JVM's ZooKeeper jars: {@code zookeeper-3.9.5.jar},
	 * {@code zookeeper-jute-3.9.5.jar}.
	 */
	private static final Pattern ZOOKEEPER_JAR = Pattern.compile("zookeeper(-jute)?-\\d[^/\\\\]*\\.jar");

	/** How {@code srvr}'s answer begins. */
	private static final String VERSION = "Zookeeper version: ";

	private final Process process;

	private final int port;

	private final Path log;

	private String version = "";

	private ZooKeeperServerJvm(List<Path> serverJars, Path dir) throws IOException {
		this.port = freePort();
		Path data = Files.createDirectories(dir.resolve("data"));
		Path config = Files.write(dir.resolve("zoo.cfg"),
				List.of("tickTime=200", "dataDir=" + data, "clientPort=" + this.port, "clientPortAddress=127.0.0.1",
						"forceSync=no", "admin.enableServer=false", "4lw.commands.whitelist=srvr"));
		this.log = dir.resolve("server.log");
		List<String> classPath = new ArrayList<>();
		serverJars.forEach((jar) -> classPath.add(jar.toString()));
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			if (serverJars.isEmpty() || !ZOOKEEPER_JAR.matcher(Path.of(entry).getFileName().toString()).matches()) {
				classPath.add(entry);
			}
		}
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.process = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
				"-Dzookeeper.jmx.log4j.disable=true", "-cp", String.join(File.pathSeparator, classPath),
				"org.apache.zookeeper.server.ZooKeeperServerMain", config.toString())
			.redirectErrorStream(true)
			.redirectOutput(this.log.toFile())
			.start();
	}

	/**
	 * Start a server and wait until it serves; the caller closes it.
	 * @param serverJars the {@code zookeeper} and {@code zookeeper-jute} jars of the
	 * version to run, or none for this build's
	 * @param dir a directory of its own for its configuration, data and log
	 * @return the running server
	 * @throws Exception if it does not start within 60 s, with the end of its log
	 */
	static ZooKeeperServerJvm start(List<Path> serverJars, Path dir) throws Exception {
		ZooKeeperServerJvm server = new ZooKeeperServerJvm(serverJars, dir);
		try {
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			// ruok answers before the server serves; srvr names the version only once it
			// does
			String answer;
			while (!(answer = server.fourLetterWord("srvr")).startsWith(VERSION)) {
				if (!server.process.isAlive() || System.nanoTime() > deadline) {
					throw new IllegalStateException("ZooKeeper server did not start; its log:\n" + server.logTail());
				}
				Thread.sleep(100);
			}
			server.version = answer.lines().findFirst().orElse("").substring(VERSION.length()).trim();
			return server;
		}
		catch (Throwable ex) {
			// Whatever ends the wait (a test's timeout interrupts it), the JVM goes with
			// it
			server.close();
			throw ex;
		}
	}

	int port() {
		return this.port;
	}

	String connectString() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * The version the server reported once it served ({@code srvr}): {@code 3.8.6-...},
	 * say.
	 */
	String version() {
		return this.version;
	}

	private String fourLetterWord(String word) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 1_000);
			socket.setSoTimeout(5_000);
			OutputStream out = socket.getOutputStream();
			out.write(word.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))) {
				return in.lines().collect(Collectors.joining("\n"));
			}
		}
		catch (IOException | UncheckedIOException ex) {
			// Not serving yet, or too slow to answer on a loaded machine: asked again
			return "";
		}
	}

	String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
		}
		catch (IOException | UncheckedIOException ex) {
			return "(no log: " + ex + ")";
		}
	}

	/**
	 * Stop the server: SIGTERM, then SIGKILL after 10 s.
	 */
	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
