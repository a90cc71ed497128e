package dev.zklock.autoconfigure.logging;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystemProperty;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What the log of a real application shows while ZooKeeper cannot be reached, at the
 * default levels: zk-lock's own line per connection state change, a few lines in all, and
 * no stack trace; and when a held node is deleted under it. Real applications, with
 * Spring Boot's logging system (so the default levels that
 * {@link ZkLockLogLevelsEnvironmentPostProcessor} contributes apply) and the captured
 * console.
 */
// The first start of Spring Boot and ZooKeeper in a JVM takes 20 s and more on a loaded
// machine
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class ZkLockConnectionLoggingTests {

	/**
	 * Full logger names, so that lines can be told apart by logger; levels are
	 * unaffected.
	 */
	private static final String CONSOLE_PATTERN = "%level [%logger] %msg%n";

	/**
	 * Lines of the client side: the in-process server's own lines are not what a user
	 * sees.
	 */
	private static final Pattern CLIENT_LINE = Pattern.compile(
			"^(TRACE|DEBUG|INFO|WARN|ERROR) +\\[(dev\\.zklock|org\\.apache\\.curator(?!\\.test)|org\\.apache\\.zookeeper(?!\\.server))[.\\]]");

	private static final Pattern STACK_LINE = Pattern.compile("^\\s+at |^Caused by: ");

	/**
	 * Spring Boot keeps {@code logging.pattern.console} in a system property, which
	 * outlives the application: later tests in this JVM get Boot's own pattern back.
	 */
	@AfterEach
	void restoreConsolePattern() {
		System.clearProperty(LoggingSystemProperty.CONSOLE_PATTERN.getEnvironmentVariableName());
	}

	@Test
	void zooKeeperDownForTenSecondsGivesAFewLinesOfOurOwn(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port,
						"zklock.session-timeout=30s")
					.run()) {
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("held-through-outage");
			assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
			int from = output.getOut().length();
			server.stop();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> output.getOut().substring(from).contains("ZooKeeper connection SUSPENDED"));
			Thread.sleep(10_000);
			server.restart();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> output.getOut().substring(from).contains("ZooKeeper connection RECONNECTED"));
			lock.unlock();
			List<String> window = output.getOut().substring(from).lines().toList();
			List<String> clientLines = window.stream().filter((line) -> CLIENT_LINE.matcher(line).find()).toList();
			String shown = String.join("\n", clientLines);
			System.err.println("[measure] 10 s outage: " + clientLines.size() + " client lines, " + stackLines(window)
					+ " stack lines");
			assertThat(clientLines).as("lines of zk-lock, Curator and ZooKeeper's client:%n%s", shown)
				.hasSizeLessThanOrEqualTo(6);
			assertThat(stackLines(window)).as("stack trace lines").isZero();
			assertThat(clientLines).anySatisfy((line) -> assertThat(line).startsWith("WARN [dev.zklock")
				.contains("ZooKeeper connection SUSPENDED (connect string 127.0.0.1:" + port + ") since ")
				.contains("1 held lock is UNCERTAIN"));
			assertThat(clientLines).anySatisfy((line) -> assertThat(line).startsWith("INFO [dev.zklock")
				.containsPattern("ZooKeeper connection RECONNECTED \\(connect string 127\\.0\\.0\\.1:" + port
						+ "\\) after \\d+\\.\\d s"));
		}
	}

	/**
	 * The start-up INFO lines of the ZooKeeper client and Curator are quiet by default:
	 * the client's environment dump (about 20 lines, logged once per JVM, by the first
	 * client), {@code Initiating client connection}, the TLS defaults,
	 * {@code jute.maxbuffer}, Curator's {@code New config event received} and the
	 * session's {@code closed}.
	 */
	@Test
	void startingGivesNoClientChatter(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true)) {
			int from = output.getOut().length();
			try (ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port)
				.run()) {
				ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("started");
				assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
				lock.unlock();
			}
			List<String> clientLines = output.getOut()
				.substring(from)
				.lines()
				.filter((line) -> CLIENT_LINE.matcher(line).find())
				.toList();
			System.err.println("[measure] start, lock, stop: " + clientLines.size() + " client lines");
			assertThat(clientLines)
				.as("lines of zk-lock, Curator and ZooKeeper's client:%n%s", String.join("\n", clientLines))
				.isEmpty();
		}
	}

	/**
	 * When its session timeout passes while {@code SUSPENDED}, Curator expires the
	 * session itself through {@code ZooKeeperTestable}, which logs that at INFO: what
	 * Curator's WARN and zk-lock's line already say.
	 */
	@Test
	void anExpiryThatCuratorInjectsGivesNoTestableLine(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port).run()) {
			int from = output.getOut().length();
			// What Curator's ConnectionStateManager calls; the line is logged on this
			// thread
			context.getBean(CuratorFramework.class)
				.getZookeeperClient()
				.getZooKeeper()
				.getTestable()
				.injectSessionExpiration();
			assertThat(output.getOut().substring(from)).doesNotContain("[org.apache.zookeeper.ZooKeeperTestable]");
		}
	}

	@Test
	void theApplicationsOwnLevelForTheClientWins(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port,
						"logging.level.org.apache.zookeeper.ZooKeeper=info")
					.run()) {
			assertThat(output.getOut())
				.contains("INFO [org.apache.zookeeper.ZooKeeper] Initiating client connection, connectString=127.0.0.1:"
						+ port);
		}
	}

	@Test
	void unresolvableHostGivesAFewLines(CapturedOutput output) throws Exception {
		int from;
		try (ConfigurableApplicationContext context = application("zklock.connect-string=no-such-host.invalid:2181",
				"zklock.fail-fast=false", "zklock.initial-connect-wait=500ms")
			.run()) {
			from = output.getOut().length();
			int windowStart = from;
			// For 5 s of the client's retries, few lines and no stack trace at any moment
			await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(15)).until(() -> {
				List<String> window = output.getOut().substring(windowStart).lines().toList();
				return window.stream().filter((line) -> CLIENT_LINE.matcher(line).find()).count() <= 4
						&& stackLines(window) == 0;
			});
		}
		// Ours names the host that does not resolve, once, at startup
		assertThat(output.getOut()
			.substring(0, from)
			.lines()
			.filter((line) -> line.startsWith("WARN [dev.zklock.autoconfigure.ZkLockAutoConfiguration]")))
			.singleElement()
			.asString()
			.contains("(host name not resolved: no-such-host.invalid)");
		List<String> window = output.getOut().substring(from).lines().toList();
		List<String> clientLines = window.stream().filter((line) -> CLIENT_LINE.matcher(line).find()).toList();
		System.err.println("[measure] unresolvable host, 5 s after startup: " + clientLines.size() + " client lines, "
				+ stackLines(window) + " stack lines");
		assertThat(clientLines)
			.as("lines of zk-lock, Curator and ZooKeeper's client:%n%s", String.join("\n", clientLines))
			.hasSizeLessThanOrEqualTo(4);
		assertThat(stackLines(window)).as("stack trace lines").isZero();
	}

	@Test
	void anErrorThatIsNotTheConnectionStillShows(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port).run()) {
			CuratorFramework client = context.getBean(CuratorFramework.class);
			client.create().withACL(ZooDefs.Ids.READ_ACL_UNSAFE).forPath("/read-only");
			// A background operation whose callback throws on NoAuth: Curator reports it
			// in its log only, from a logger that is off by default
			client.create().inBackground((curator, event) -> {
				if (event.getResultCode() != 0) {
					throw KeeperException.create(KeeperException.Code.get(event.getResultCode()), event.getPath());
				}
			}).forPath("/read-only/child");
			await().atMost(Duration.ofSeconds(20)).until(() -> output.getOut().contains("NoAuth for /read-only/child"));
		}
		assertThat(output.getOut())
			.contains("ERROR [dev.zklock.autoconfigure.logging.CuratorUnhandledErrorLogger] Curator: "
					+ "Background exception was not retry-able or retry gave up")
			.contains(
					"org.apache.zookeeper.KeeperException$NoAuthException: KeeperErrorCode = NoAuth for /read-only/child");
	}

	/**
	 * A held node that the application deletes through the client zk-lock uses (its own
	 * code, an admin tool in the same JVM) is lost, and the ERROR line does not blame
	 * another JVM: it says the node went, not by its release.
	 */
	@Test
	void aHeldNodeThatTheApplicationsOwnClientDeletesIsLoggedAsDeletedNotByItsRelease(CapturedOutput output)
			throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port).run()) {
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("deleted-by-the-application");
			assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
			// A hold watches its node, and so hears of a delete, once it listens for
			// revocation requests
			lock.onRevocationRequested(() -> {
			});
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String node = lock.path() + "/" + client.getChildren().forPath(lock.path()).get(0);
			client.delete().forPath(node);
			String line = "ERROR [dev.zklock.core.SessionTracker] Lock 'deleted-by-the-application' (" + lock.path()
					+ ") is LOST: its node " + node + " was deleted, not by its release, while this JVM held it";
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(output.getOut()).contains(line));
			assertThat(lock.leaseState()).isEqualTo(LeaseState.LOST);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		}
	}

	@Test
	void theApplicationsOwnLevelsWin(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = application("zklock.connect-string=127.0.0.1:" + port,
						"logging.level.org.apache.zookeeper.ClientCnxn=info")
					.run()) {
			assertThat(output.getOut())
				.contains("INFO [org.apache.zookeeper.ClientCnxn] Session establishment complete");
		}
	}

	@Test
	void noDefaultLevelsWhenZkLockIsDisabled() {
		StandardEnvironment environment = new StandardEnvironment();
		TestPropertyValues.of("zklock.enabled=false").applyTo(environment);
		new ZkLockLogLevelsEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
		assertThat(
				environment.getPropertySources().contains(ZkLockLogLevelsEnvironmentPostProcessor.PROPERTY_SOURCE_NAME))
			.isFalse();
		StandardEnvironment enabled = new StandardEnvironment();
		new ZkLockLogLevelsEnvironmentPostProcessor().postProcessEnvironment(enabled, new SpringApplication());
		assertThat(enabled.getPropertySources().stream().map(PropertySource::getName)).last()
			.isEqualTo(ZkLockLogLevelsEnvironmentPostProcessor.PROPERTY_SOURCE_NAME);
		assertThat(enabled.getProperty("logging.level.org.apache.zookeeper.ClientCnxn")).isEqualTo("error");
		assertThat(enabled.getProperty("logging.level.org.apache.zookeeper.ZooKeeperTestable")).isEqualTo("warn");
	}

	private static long stackLines(List<String> lines) {
		return lines.stream().filter((line) -> STACK_LINE.matcher(line).find()).count();
	}

	private static int freePort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static SpringApplicationBuilder application(String... properties) {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.registerShutdownHook(false)
			.properties("zklock.connection-timeout=2s", "logging.pattern.console=" + CONSOLE_PATTERN)
			.properties(properties);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class App {

	}

}
