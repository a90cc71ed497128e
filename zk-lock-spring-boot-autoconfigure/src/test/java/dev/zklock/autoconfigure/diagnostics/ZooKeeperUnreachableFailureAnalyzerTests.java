package dev.zklock.autoconfigure.diagnostics;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assumptions.assumeThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ZooKeeperUnreachableFailureAnalyzer}: {@code zklock.fail-fast=true}
 * against an address where nothing listens, with a real Curator client.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class ZooKeeperUnreachableFailureAnalyzerTests {

	private static final String DIGEST_PASSWORD = "digest-Secret-77";

	private static final String STORE_PASSWORD = "store-Secret-88";

	private String connectString;

	@BeforeEach
	void freeAddress() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		this.connectString = "127.0.0.1:" + port;
	}

	@Test
	void bootPrintsTheReportNamingConnectStringAndWait(CapturedOutput output) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.registerShutdownHook(false)
			.properties("zklock.connect-string=" + this.connectString, "zklock.initial-connect-wait=500ms",
					"zklock.connection-timeout=60s", "zklock.fail-fast=true", "zklock.namespace=shop",
					"zklock.auth.username=shop", "zklock.auth.password=" + DIGEST_PASSWORD);
		long start = System.nanoTime();
		Throwable failure = catchThrowable(application::run);
		assertThat(failure).isNotNull();
		// Catches startup waiting for the connection timeout rather than the 500 ms; wide
		// for loaded CI
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
		FailureAnalysis analysis = new ZooKeeperUnreachableFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of %s", failure).isNotNull();
		assertThat(analysis.getDescription())
			.startsWith("ZooKeeper at '" + this.connectString + "' could not be reached, and zklock.fail-fast is "
					+ "true: tried for 500 ms (zklock.initial-connect-wait) without getting a connection.")
			.contains("\tTLS: off (zklock.tls.enabled)")
			.contains("\tconnection timeout: 60000 ms (zklock.connection-timeout)")
			.contains("\tsession timeout: 30000 ms (zklock.session-timeout)")
			.contains("\tdigest authentication: configured (zklock.auth.username)")
			.contains("\tnamespace: shop (zklock.namespace)")
			.contains("ZooKeeper client state when startup gave up: CONNECTING")
			.doesNotContain("did not resolve");
		assertThat(analysis.getAction())
			.contains("Check that ZooKeeper is running and reachable from here at " + this.connectString)
			.contains("correct zklock.connect-string")
			.contains("raise zklock.initial-connect-wait")
			.contains("set zklock.fail-fast=false")
			.contains("health reports DOWN")
			.contains("If the server accepts only TLS connections, set zklock.tls.enabled=true")
			.doesNotContain("secureClientPort");
		ZooKeeperUnreachableException cause = (ZooKeeperUnreachableException) analysis.getCause();
		assertThat(cause.getConnectString()).isEqualTo(this.connectString);
		assertThat(cause.getInitialConnectWait()).isEqualTo(Duration.ofMillis(500));
		assertThat(cause.isAuthEnabled()).isTrue();
		assertThat(cause.isTlsEnabled()).isFalse();
		assertThat(cause.getNamespace()).isEqualTo("shop");
		assertThat(cause.getClientState()).isEqualTo(ZooKeeper.States.CONNECTING);
		assertThat(cause.getUnresolvedHosts()).isEmpty();
		// Spring Boot found the analyzer through spring.factories and printed the report,
		// not a trace
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("ZooKeeper at '" + this.connectString + "' could not be reached, and zklock.fail-fast is true")
			.contains("To start without ZooKeeper, set zklock.fail-fast=false")
			.doesNotContain("\tat dev.zklock.autoconfigure.ZkLockAutoConfiguration")
			.doesNotContain(DIGEST_PASSWORD);
		assertThat(stackTraceOf(failure)).doesNotContain(DIGEST_PASSWORD);
		// The client that could not connect is closed, not left retrying
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
				.noneMatch((thread) -> thread.isAlive() && thread.getName().contains(this.connectString)));
	}

	@Test
	void tlsActionPointsAtTheSecurePortAndNoSecretLeaks(@TempDir Path dir, CapturedOutput output) {
		runner()
			.withPropertyValues("zklock.tls.enabled=true", "zklock.tls.trust-store=" + dir.resolve("trust.p12"),
					"zklock.tls.trust-store-password=" + STORE_PASSWORD, "zklock.auth.username=shop",
					"zklock.auth.password=" + DIGEST_PASSWORD)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new ZooKeeperUnreachableFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
				assertThat(analysis.getDescription()).contains("\tTLS: on (zklock.tls.enabled)")
					.contains("\tnamespace: none (zklock.namespace)");
				assertThat(analysis.getAction())
					.contains("TLS is on: the port must be ZooKeeper's secure client "
							+ "port (secureClientPort), not its plain clientPort")
					.doesNotContain("set zklock.tls.enabled=true");
				assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain(STORE_PASSWORD)
					.doesNotContain(DIGEST_PASSWORD);
				assertThat(stackTraceOf(context.getStartupFailure())).doesNotContain(STORE_PASSWORD)
					.doesNotContain(DIGEST_PASSWORD);
			});
		assertThat(output.toString()).doesNotContain(STORE_PASSWORD).doesNotContain(DIGEST_PASSWORD);
	}

	@Test
	void hostThatDoesNotResolveIsNamed() {
		// RFC 6761: never resolves, unless a resolver answers for names that do not exist
		assumeThatThrownBy(() -> InetAddress.getByName("nowhere.invalid")).isInstanceOf(UnknownHostException.class);
		String connectString = "nowhere.invalid:2181," + this.connectString + "/chroot";
		runner().withPropertyValues("zklock.connect-string=" + connectString).run((context) -> {
			FailureAnalysis analysis = new ZooKeeperUnreachableFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getDescription()).startsWith("ZooKeeper at '" + connectString + "'")
				.endsWith("\nHost names that did not resolve to an address: nowhere.invalid");
			assertThat(analysis.getAction())
				.contains("Correct the host names nowhere.invalid in zklock.connect-string: they do not resolve");
			assertThat(((ZooKeeperUnreachableException) analysis.getCause()).getUnresolvedHosts())
				.containsExactly("nowhere.invalid");
		});
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.connectString, "zklock.initial-connect-wait=500ms",
					"zklock.fail-fast=true");
	}

	private static String stackTraceOf(Throwable failure) {
		StringWriter writer = new StringWriter();
		failure.printStackTrace(new PrintWriter(writer));
		return writer.toString();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class App {

	}

}
