package dev.zklock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone ZooKeeper server in this JVM, for development and tests only: one server
 * is no ensemble, and it dies with the application. Its admin server is off, and a fatal
 * error inside it is logged rather than calling {@code System.exit}. A temporary data
 * directory is deleted when the server stops, and when it fails to start (once whatever
 * ZooKeeper had started is stopped).
 *
 * @author zk-lock
 */
public class EmbeddedZooKeeper implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

	/** Prefix of the temporary data directories, in {@code java.io.tmpdir}. */
	static final String TEMP_DIR_PREFIX = "zk-lock-embedded";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

	/** How long stopping waits for ZooKeeper's server thread to end. */
	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * How long a temporary data directory may resist deletion: ZooKeeper's threads may
	 * still be closing its files.
	 */
	private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(5);

	/** Name of the thread that runs a server of {@link ZooKeeperServerEmbedded}. */
	private static final String SERVER_THREAD_NAME = "zkservermainrunner";

	private final ZooKeeperServerEmbedded server;

	private final List<Thread> serverThreads;

	private final Path baseDir;

	private final boolean deleteOnClose;

	private final String connectString;

	/**
	 * Start a server.
	 * @param port the client port, 0 for a free one
	 * @param dataDir the data directory, {@code null} for a temporary one deleted on
	 * close
	 * @throws EmbeddedZooKeeperPortInUseException if the port is already in use
	 * @throws Exception if the server does not start
	 */
	public EmbeddedZooKeeper(int port, @Nullable Path dataDir) throws Exception {
		this(port, dataDir, new Properties(), START_TIMEOUT);
	}

	/**
	 * Start a server with more ZooKeeper configuration and another start timeout: tests
	 * use it to make a real server fail where the public constructor cannot be made to.
	 */
	EmbeddedZooKeeper(int port, @Nullable Path dataDir, Properties moreConfiguration, Duration startTimeout)
			throws Exception {
		if (port != 0) {
			// Before anything is created: ZooKeeper's own bind failure is only logged by
			// its server thread, and start() then waits out its whole timeout
			checkPortIsFree(port);
		}
		this.deleteOnClose = (dataDir == null);
		this.baseDir = (dataDir != null) ? Files.createDirectories(dataDir)
				: Files.createTempDirectory(TEMP_DIR_PREFIX);
		Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
		ZooKeeperServerEmbedded server = null;
		try {
			Properties configuration = new Properties();
			configuration.setProperty("clientPort", Integer.toString(port));
			configuration.setProperty("admin.enableServer", "false");
			configuration.setProperty("tickTime", "2000");
			configuration.putAll(moreConfiguration);
			server = ZooKeeperServerEmbedded.builder()
				.baseDir(this.baseDir)
				.configuration(configuration)
				.exitHandler(ExitHandler.LOG_ONLY)
				.build();
			server.start(startTimeout.toMillis());
		}
		catch (Exception | Error ex) {
			if (server != null) {
				stop(server, serverThreadsStartedSince(threadsBefore));
			}
			deleteBaseDir();
			if (ex instanceof TimeoutException timeout) {
				throw startTimedOut(port, startTimeout, timeout);
			}
			throw ex;
		}
		this.server = server;
		this.serverThreads = serverThreadsStartedSince(threadsBefore);
		this.connectString = this.server.getConnectionString();
		logger.info("Started an embedded ZooKeeper at {} (data in {}), for development only: a single in-process "
				+ "server is no ensemble and stops with this application", this.connectString, this.baseDir);
	}

	private static IllegalStateException startTimedOut(int port, Duration startTimeout, TimeoutException timeout) {
		if (port != 0) {
			try {
				// Taken between the check above and ZooKeeper's bind
				checkPortIsFree(port);
			}
			catch (IllegalStateException bindFailure) {
				bindFailure.addSuppressed(timeout);
				return bindFailure;
			}
		}
		return new IllegalStateException("The embedded ZooKeeper server did not start within " + startTimeout.toMillis()
				+ " ms; ZooKeeper's log above says why", timeout);
	}

	/**
	 * The server threads that {@code start} created. ZooKeeper keeps its own to itself;
	 * it is the one of its name that was not there before (another server starting in
	 * this JVM at the same moment would add its own, and only make stopping wait longer).
	 */
	private static List<Thread> serverThreadsStartedSince(Set<Thread> before) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> SERVER_THREAD_NAME.equals(thread.getName()) && !before.contains(thread))
			.toList();
	}

	/**
	 * Close the server until its threads have ended. Once is not always enough:
	 * ZooKeeper's close stops nothing while its server thread is still starting (as when
	 * start times out), and that thread then brings up a server that nobody stops,
	 * writing to the data directory.
	 */
	private static void stop(ZooKeeperServerEmbedded server, List<Thread> serverThreads) {
		long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
		server.close();
		for (Thread thread : serverThreads) {
			while (thread.isAlive()) {
				if (System.nanoTime() - deadline > 0) {
					logger.warn("The embedded ZooKeeper server's thread did not end within {} ms of closing it",
							STOP_TIMEOUT.toMillis());
					return;
				}
				try {
					thread.join(100);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				if (thread.isAlive()) {
					server.close();
				}
			}
		}
	}

	/**
	 * Bind the port as ZooKeeper's server would (all addresses, address reuse on), and
	 * let it go.
	 */
	private static void checkPortIsFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress(port));
		}
		catch (BindException ex) {
			String reason = String.valueOf(ex.getMessage());
			if (reason.toLowerCase(Locale.ROOT).contains("in use")) {
				throw new EmbeddedZooKeeperPortInUseException(port, ex);
			}
			// Not in use, but not ours either: a privileged port, say
			throw new IllegalStateException("The embedded ZooKeeper server cannot listen on port " + port
					+ " (zklock.embedded.port): " + reason, ex);
		}
		catch (IOException ex) {
			// Not a verdict on the port: leave it to ZooKeeper
			logger.debug("Could not check port {} before starting the embedded ZooKeeper", port, ex);
		}
	}

	/**
	 * Return the connect string of the server.
	 * @return the connect string
	 */
	public String getConnectString() {
		return this.connectString;
	}

	/**
	 * Stop the server, and delete its data directory if it is a temporary one.
	 */
	@Override
	public void close() {
		try {
			stop(this.server, this.serverThreads);
		}
		finally {
			deleteBaseDir();
		}
	}

	private void deleteBaseDir() {
		if (!this.deleteOnClose) {
			return;
		}
		// ZooKeeper's server thread finishes its shutdown after close() returns, and may
		// still hold or write a file: try again until the directory is gone
		long deadline = System.nanoTime() + DELETE_TIMEOUT.toNanos();
		while (true) {
			try {
				deleteRecursively(this.baseDir);
				return;
			}
			catch (IOException | UncheckedIOException ex) {
				if (System.nanoTime() - deadline > 0 || !pauseBeforeRetry()) {
					// Left behind in the temporary directory: worth a line, not a failed
					// shutdown
					logger.warn("Could not delete the embedded ZooKeeper's data directory {}", this.baseDir, ex);
					return;
				}
			}
		}
	}

	private static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
	}

	private static boolean pauseBeforeRetry() {
		try {
			Thread.sleep(50);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
