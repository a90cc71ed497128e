package dev.zklock.autoconfigure.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone ZooKeeper server in this JVM, for development and tests only: one server is no
 * ensemble, and it dies with the application. Its admin server is off, and a fatal error inside
 * it is logged rather than calling {@code System.exit}.
 *
 * @author zk-lock
 */
public class EmbeddedZooKeeper implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

	private final ZooKeeperServerEmbedded server;

	private final Path baseDir;

	private final boolean deleteOnClose;

	private final String connectString;

	/**
	 * Start a server.
	 * @param port the client port, 0 for a free one
	 * @param dataDir the data directory, {@code null} for a temporary one deleted on close
	 * @throws Exception if the server does not start
	 */
	public EmbeddedZooKeeper(int port, @Nullable Path dataDir) throws Exception {
		this.deleteOnClose = (dataDir == null);
		this.baseDir = (dataDir != null) ? Files.createDirectories(dataDir) : Files.createTempDirectory("zk-lock-embedded");
		Properties configuration = new Properties();
		configuration.setProperty("clientPort", Integer.toString(port));
		configuration.setProperty("admin.enableServer", "false");
		configuration.setProperty("tickTime", "2000");
		this.server = ZooKeeperServerEmbedded.builder()
			.baseDir(this.baseDir)
			.configuration(configuration)
			.exitHandler(ExitHandler.LOG_ONLY)
			.build();
		this.server.start(30_000);
		this.connectString = this.server.getConnectionString();
		logger.info("Started an embedded ZooKeeper at {} (data in {}), for development only: a single in-process "
				+ "server is no ensemble and stops with this application", this.connectString, this.baseDir);
	}

	/**
	 * Return the connect string of the server.
	 * @return the connect string
	 */
	public String getConnectString() {
		return this.connectString;
	}

	@Override
	public void close() {
		this.server.close();
		if (this.deleteOnClose) {
			try (Stream<Path> paths = Files.walk(this.baseDir)) {
				paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException ex) {
				logger.debug("Could not delete {}", this.baseDir, ex);
			}
		}
	}

}
