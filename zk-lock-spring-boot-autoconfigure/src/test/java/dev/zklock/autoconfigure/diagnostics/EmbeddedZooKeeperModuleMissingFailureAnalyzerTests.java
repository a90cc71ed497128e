package dev.zklock.autoconfigure.diagnostics;

import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

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
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests for {@link EmbeddedZooKeeperModuleMissingFailureAnalyzer}:
 * {@code zklock.embedded.enabled=true} without dev.zklock:zk-lock-embedded-zookeeper,
 * which this module's tests do not have.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedZooKeeperModuleMissingFailureAnalyzerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
		.withPropertyValues("zklock.embedded.enabled=true");

	@Test
	void theModuleIsNotOnThisClasspath() {
		assertThat(ClassUtils.isPresent(EmbeddedZooKeeperModuleMissingException.AUTO_CONFIGURATION, null)).isFalse();
	}

	@Test
	void startupFailsWithTheReportAndNeverConnectsToTheConnectString(CapturedOutput output) throws Exception {
		try (ServerSocket listener = new ServerSocket(0)) {
			// Where the client would go instead: a connection here is the silent
			// fall-back this prevents
			listener.setSoTimeout(500);
			SpringApplicationBuilder application = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
				.bannerMode(Banner.Mode.OFF)
				.registerShutdownHook(false)
				.properties("zklock.embedded.enabled=true",
						"zklock.connect-string=127.0.0.1:" + listener.getLocalPort(), "zklock.initial-connect-wait=30s",
						"zklock.fail-fast=true");
			long start = System.nanoTime();
			Throwable failure = catchThrowable(application::run);
			// Not after waiting for a connection; wide for loaded CI
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
			FailureAnalysis analysis = new EmbeddedZooKeeperModuleMissingFailureAnalyzer().analyze(failure);
			assertThat(analysis).as("analysis of %s", failure).isNotNull();
			assertThat(analysis.getDescription()).isEqualTo("zklock.embedded.enabled is true, but the embedded "
					+ "ZooKeeper server is not on the classpath. It is in its own module, "
					+ "dev.zklock:zk-lock-embedded-zookeeper, which zk-lock's starter does not bring.");
			assertThat(analysis.getAction())
				.contains("Add dev.zklock:zk-lock-embedded-zookeeper to the application's dependencies")
				.contains("test scope when only tests use the embedded server")
				.contains("set zklock.embedded.enabled=false and point zklock.connect-string at it");
			// Spring Boot found the analyzer through spring.factories and printed the
			// report, not a trace
			assertThat(output).contains("APPLICATION FAILED TO START")
				.contains("Add dev.zklock:zk-lock-embedded-zookeeper")
				.doesNotContain("\tat dev.zklock.autoconfigure");
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(listener::accept);
		}
	}

	@Test
	void failsBeforeAnyBeanIsCreated() {
		AtomicBoolean created = new AtomicBoolean();
		this.runner.withBean(CuratorFramework.class, () -> {
			created.set(true);
			return CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(100));
		}).run((context) -> {
			assertThat(context).getFailure().isInstanceOf(EmbeddedZooKeeperModuleMissingException.class);
			assertThat(((EmbeddedZooKeeperModuleMissingException) context.getStartupFailure()).getModule())
				.isEqualTo("dev.zklock:zk-lock-embedded-zookeeper");
		});
		assertThat(created).isFalse();
	}

	@Test
	void nothingToReportWhenZkLockIsOff() {
		this.runner.withPropertyValues("zklock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(CuratorFramework.class));
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class App {

	}

}
