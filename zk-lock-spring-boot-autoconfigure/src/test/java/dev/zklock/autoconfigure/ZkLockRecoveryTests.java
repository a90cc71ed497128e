package dev.zklock.autoconfigure;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.health.ZkLockHealthContributorAutoConfiguration;
import dev.zklock.core.TimingSensitive;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fault scenarios 6 and 7 of the fault matrix, at the application level: ZooKeeper absent
 * at startup, and ZooKeeper restarted while the application is idle. Both recover without
 * an application restart. Rows go to {@code target/fault-matrix.md}.
 */
@Timeout(120)
@TimingSensitive
class ZkLockRecoveryTests {

	/**
	 * How long the first lock call after recovery may wait: the test is about recovering
	 * without a restart, not how fast, and the time it took goes to the report; wide for
	 * loaded CI.
	 */
	private static final Duration RECOVERY_WAIT = Duration.ofSeconds(30);

	/** The application's 4 s session, for the restart while idle. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(4));

	@BeforeAll
	static void resetReport() throws Exception {
		Files.deleteIfExists(Path.of("target", "fault-matrix.md"));
	}

	private ApplicationContextRunner runner(String connectString) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + connectString, "zklock.session-timeout=4s",
					"zklock.connection-timeout=2s", "zklock.initial-connect-wait=500ms");
	}

	@Test
	void zooKeeperAbsentAtStartupThenStarted() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		runner("127.0.0.1:" + port).run((context) -> {
			assertThat(context).hasNotFailed();
			ZkLockHealthIndicator health = context.getBean(ZkLockHealthIndicator.class);
			assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
			try (TestingServer server = new TestingServer(port, true)) {
				long started = System.nanoTime();
				awaitUp(health);
				long up = System.nanoTime();
				context.getBean(ZkLockRegistry.class).executeLocked("after-start", RECOVERY_WAIT, () -> {
				});
				long locked = System.nanoTime();
				report("| 6. ZooKeeper absent at startup, started later | app started, health DOWN | UP "
						+ millis(up - started) + " ms after ZooKeeper started; first lock " + millis(locked - started)
						+ " ms after |");
			}
		});
	}

	@Test
	void zooKeeperRestartedWhileIdle() throws Exception {
		runner(zk.connectString()).run((context) -> {
			ZkLockRegistry registry = zk.useApplication(context.getBean(ZkLockRegistry.class));
			registry.executeLocked("idle", Duration.ofSeconds(5), () -> {
			});
			zk.stopServer();
			long restarted = System.nanoTime();
			// returns once the application is connected again
			zk.restartServer();
			registry.executeLocked("idle", RECOVERY_WAIT, () -> {
			});
			long locked = System.nanoTime();
			awaitUp(context.getBean(ZkLockHealthIndicator.class));
			zk.assertThatKey("idle").isNotHeld().wasAcquired(2).wasNotLost();
			report("| 7. ZooKeeper restarted while idle | next lock call works | first lock "
					+ millis(locked - restarted) + " ms after the restart |");
		});
	}

	private static void awaitUp(ZkLockHealthIndicator health) {
		await().atMost(Duration.ofSeconds(40))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private static synchronized void report(String row) throws Exception {
		Path report = Path.of("target", "fault-matrix.md");
		Files.createDirectories(report.getParent());
		if (!Files.exists(report)) {
			Files.write(report, List.of("| scenario | behaviour | time to recover |", "|---|---|---|"));
		}
		Files.writeString(report, row + "\n", java.nio.file.StandardOpenOption.APPEND);
	}

}
