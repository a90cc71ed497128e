package dev.zklock.embedded;

import java.util.List;

import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At the default levels, an application that runs the embedded server gets a few lines
 * from ZooKeeper and Curator instead of about 160, and no banner. ZooKeeper prints its
 * banner and its environment once a JVM, when its server and client classes load: this
 * class must be the first in its JVM to start either, which the build ensures by forking
 * a JVM for each test class.
 */
// The first start of Spring Boot and ZooKeeper in a JVM takes 20 s and more on a loaded
// machine
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedZooKeeperQuietLogTests {

	/** A line of ZooKeeper's ASCII-art banner. */
	private static final String BANNER = "|___  /";

	@RegisterExtension
	final SystemPropertiesRestored systemProperties = new SystemPropertiesRestored();

	@Test
	void zooKeeperSaysLittleAtTheDefaultLevels(CapturedOutput output) throws Exception {
		LoggerContext loggers = (LoggerContext) LoggerFactory.getILoggerFactory();
		assertThat(loggers.exists("org.apache.zookeeper.server.ZooKeeperServer"))
			.as("a ZooKeeper server has already started in this JVM, so its banner cannot be seen; "
					+ "run this class in a JVM of its own")
			.isNull();
		try (ConfigurableApplicationContext context = EmbeddedZooKeeperLoggingTests.application().run()) {
			EmbeddedZooKeeperLoggingTests.lockOnce(context);
		}
		List<String> libraryLines = EmbeddedZooKeeperLoggingTests.libraryLines(output);
		// Without the default levels: about 160 lines from start to shutdown, 126 of them
		// the server's
		assertThat(libraryLines)
			.as("INFO and WARN lines of ZooKeeper and Curator:%n%s", String.join("\n", libraryLines))
			.hasSizeLessThanOrEqualTo(5);
		assertThat(output).doesNotContain(BANNER)
			.doesNotContain("Server environment:")
			.doesNotContain("Client environment:")
			.doesNotContain("maxCnxns is not configured");
		// The server's class did load and log, below the level
		assertThat(loggers.exists("org.apache.zookeeper.server.ZooKeeperServer")).isNotNull();
		// What a developer needs to know stays: where the server is, and that it is not
		// for production
		assertThat(output.getOut()).containsOnlyOnce("Started an embedded ZooKeeper at localhost:")
			.contains("for development only");
	}

}
