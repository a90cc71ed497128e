package dev.zklock.autoconfigure;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.autoconfigure.health.ZkLockHealthContributorAutoConfiguration;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TLS to a real in-process ZooKeeper that listens only on a secure client port, with a
 * key pair and trust store made by {@code keytool} for the test. Also checks that neither
 * the TLS nor the digest passwords reach logs, health details or exception messages.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class ZkLockTlsTests {

	private static final String STORE_PASSWORD = "tls-St0re-Secret";

	private static final String DIGEST_PASSWORD = "digest-Secret-42";

	@TempDir
	Path dir;

	private Properties systemProperties;

	private ZooKeeperServerEmbedded server;

	private int securePort;

	private Path keyStore;

	private Path trustStore;

	@BeforeEach
	void startSecureServer() throws Exception {
		// ZooKeeper's server turns unknown zoo.cfg keys into system properties: restore
		// them after
		this.systemProperties = (Properties) System.getProperties().clone();
		this.keyStore = this.dir.resolve("zk.p12");
		this.trustStore = this.dir.resolve("trust.p12");
		Path certificate = this.dir.resolve("zk.cer");
		keytool("-genkeypair", "-alias", "zk", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname",
				"CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-keystore", this.keyStore.toString(),
				"-storetype", "PKCS12", "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
		keytool("-exportcert", "-alias", "zk", "-keystore", this.keyStore.toString(), "-storepass", STORE_PASSWORD,
				"-file", certificate.toString());
		keytool("-importcert", "-noprompt", "-alias", "zk", "-file", certificate.toString(), "-keystore",
				this.trustStore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
		this.securePort = freePort();
		Properties configuration = new Properties();
		configuration.setProperty("secureClientPort", Integer.toString(this.securePort));
		configuration.setProperty("clientPort", Integer.toString(freePort()));
		configuration.setProperty("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
		configuration.setProperty("admin.enableServer", "false");
		configuration.setProperty("ssl.keyStore.location", this.keyStore.toString());
		configuration.setProperty("ssl.keyStore.password", STORE_PASSWORD);
		configuration.setProperty("ssl.trustStore.location", this.trustStore.toString());
		configuration.setProperty("ssl.trustStore.password", STORE_PASSWORD);
		this.server = ZooKeeperServerEmbedded.builder()
			.baseDir(Files.createDirectories(this.dir.resolve("zk")))
			.configuration(configuration)
			.exitHandler(ExitHandler.LOG_ONLY)
			.build();
		this.server.start(30_000);
	}

	@AfterEach
	void stopServer() {
		this.server.close();
		System.setProperties(this.systemProperties);
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=localhost:" + this.securePort, "zklock.initial-connect-wait=10s",
					"zklock.tls.enabled=true", "zklock.tls.key-store=" + this.keyStore,
					"zklock.tls.key-store-password=" + STORE_PASSWORD, "zklock.tls.trust-store=" + this.trustStore,
					"zklock.tls.trust-store-password=" + STORE_PASSWORD, "zklock.auth.username=shop",
					"zklock.auth.password=" + DIGEST_PASSWORD);
	}

	@Test
	void locksOverTlsAndSecretsStayOutOfLogsHealthAndErrors(CapturedOutput output) {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("tls");
			lock.lock();
			try {
				assertThat(lock.fencingToken()).isPositive();
			}
			finally {
				lock.unlock();
			}
			Health health = context.getBean(ZkLockHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.toString()).doesNotContain(STORE_PASSWORD).doesNotContain(DIGEST_PASSWORD);
		});
		// A failing start with the same secrets: the failure names the property, not the
		// secrets
		runner().withPropertyValues("zklock.tls.trust-store=").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("zklock.tls.trust-store");
			assertThat(stackTraceOf(context.getStartupFailure())).doesNotContain(STORE_PASSWORD)
				.doesNotContain(DIGEST_PASSWORD);
		});
		assertThat(output.toString()).doesNotContain(STORE_PASSWORD).doesNotContain(DIGEST_PASSWORD);
	}

	@Test
	void plainClientCannotTalkToTheSecurePort() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=localhost:" + this.securePort, "zklock.initial-connect-wait=1s",
					"zklock.connection-timeout=1s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ZkLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
			});
	}

	private static String stackTraceOf(Throwable failure) {
		java.io.StringWriter writer = new java.io.StringWriter();
		failure.printStackTrace(new java.io.PrintWriter(writer));
		return writer.toString();
	}

	private static int freePort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static void keytool(String... args) throws Exception {
		List<String> command = new java.util.ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String out = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(out).isZero();
	}

}
