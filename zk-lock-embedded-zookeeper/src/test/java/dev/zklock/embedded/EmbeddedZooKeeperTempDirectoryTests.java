package dev.zklock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The temporary data directory of the embedded server (no
 * {@code zklock.embedded.data-dir}) is gone after shutdown and after every failed start.
 * Counted in {@code java.io.tmpdir}, which the build points at this module's
 * {@code target} directory, so that other builds on the machine cannot change the count.
 */
@Timeout(60)
class EmbeddedZooKeeperTempDirectoryTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(EmbeddedZooKeeperAutoConfiguration.class, ZkLockAutoConfiguration.class))
		.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.port=0");

	@RegisterExtension
	final SystemPropertiesRestored systemProperties = new SystemPropertiesRestored();

	private List<Path> before;

	@BeforeEach
	void countTempDataDirectories() {
		this.before = tempDataDirectories();
	}

	@Test
	void removedOnShutdown() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(CuratorFramework.class).create().forPath("/written", new byte[100]);
			List<Path> during = tempDataDirectories();
			assertThat(during).hasSize(this.before.size() + 1).containsAll(this.before);
		});
		assertThat(tempDataDirectories()).isEqualTo(this.before);
	}

	@Test
	void removedWhenTheApplicationFailsToStartAfterTheServerDid() {
		this.runner.withBean("failing", FailingBean.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessage("the application's own failure");
		});
		assertThat(tempDataDirectories()).isEqualTo(this.before);
	}

	@Test
	void removedWhenTheServerFailsToStart() throws Exception {
		try (ServerSocket busy = new ServerSocket(0)) {
			// The port is taken after the check for it (port 0 skips the check), as when
			// another process binds it in between: ZooKeeper's own bind fails, and
			// start() times out
			Properties configuration = new Properties();
			configuration.setProperty("clientPort", Integer.toString(busy.getLocalPort()));
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> new EmbeddedZooKeeper(0, null, configuration, Duration.ofSeconds(2)))
				.withMessageContaining("did not start within 2000 ms");
		}
		assertThat(tempDataDirectories()).isEqualTo(this.before);
	}

	@Test
	void removedAndTheServerStoppedWhenStartTimesOutMidway() {
		Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
		// ZooKeeper is still starting when its start times out, and its own close() then
		// stops nothing: its thread would go on to bring up a server, writing to the
		// deleted directory
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> new EmbeddedZooKeeper(0, null, new Properties(), Duration.ZERO))
			.withMessageContaining("did not start within 0 ms");
		assertThat(tempDataDirectories()).isEqualTo(this.before);
		// Nor is a server left running, with its port, after the failure
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet()).noneMatch((thread) -> thread.isAlive()
					&& !threadsBefore.contains(thread) && (thread.getName().equals("zkservermainrunner")
							|| thread.getName().startsWith("NIOServerCxnFactory"))));
		assertThat(tempDataDirectories()).isEqualTo(this.before);
	}

	@Test
	void noneCreatedWhenThePortIsInUse() throws Exception {
		try (ServerSocket busy = new ServerSocket(0)) {
			this.runner.withPropertyValues("zklock.embedded.port=" + busy.getLocalPort())
				.run((context) -> assertThat(
						new EmbeddedZooKeeperPortInUseFailureAnalyzer().analyze(context.getStartupFailure()))
					.isNotNull());
		}
		assertThat(tempDataDirectories()).isEqualTo(this.before);
	}

	@Test
	void tempDirectoryIsThisModulesOwn() {
		// Otherwise the counts above could see other builds' servers come and go
		assertThat(Path.of(System.getProperty("java.io.tmpdir")).getFileName()).hasToString("target");
	}

	/**
	 * The embedded servers' temporary data directories now in {@code java.io.tmpdir},
	 * sorted: the prefix and the digits that {@link Files#createTempDirectory} adds (not
	 * this module's jars).
	 */
	static List<Path> tempDataDirectories() {
		Pattern name = Pattern.compile(Pattern.quote(EmbeddedZooKeeper.TEMP_DIR_PREFIX) + "-?\\d+");
		try (Stream<Path> paths = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
			return paths.filter((path) -> name.matcher(path.getFileName().toString()).matches())
				.filter(Files::isDirectory)
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A bean of the application that fails once the client is connected, so after the
	 * server started.
	 */
	static class FailingBean {

		FailingBean(CuratorFramework client) {
			assertThat(client.getZookeeperClient().isConnected()).isTrue();
			throw new IllegalStateException("the application's own failure");
		}

	}

}
