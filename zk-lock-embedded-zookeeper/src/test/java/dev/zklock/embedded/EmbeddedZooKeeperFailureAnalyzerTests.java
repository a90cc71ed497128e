package dev.zklock.embedded;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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

/**
 * Tests for {@link EmbeddedZooKeeperPortInUseFailureAnalyzer}, with a real server and a
 * real socket holding the port.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedZooKeeperFailureAnalyzerTests {

	@TempDir
	Path dir;

	@RegisterExtension
	final SystemPropertiesRestored systemProperties = new SystemPropertiesRestored();

	@Test
	void portInUseFailsAtOnceWithTheReport(CapturedOutput output) throws Exception {
		Path dataDir = this.dir.resolve("zk");
		Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
		try (ServerSocket busy = new ServerSocket(0)) {
			int port = busy.getLocalPort();
			SpringApplicationBuilder application = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
				.bannerMode(Banner.Mode.OFF)
				.registerShutdownHook(false)
				.properties("zklock.embedded.enabled=true", "zklock.embedded.port=" + port,
						"zklock.embedded.data-dir=" + dataDir);
			long start = System.nanoTime();
			Throwable failure = catchThrowable(application::run);
			// ZooKeeper alone waits out its 30 s start timeout before failing; wide for
			// loaded CI
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
			assertThat(failure).isNotNull();
			FailureAnalysis analysis = new EmbeddedZooKeeperPortInUseFailureAnalyzer().analyze(failure);
			assertThat(analysis).as("analysis of %s", failure).isNotNull();
			assertThat(analysis.getDescription())
				.isEqualTo("The embedded ZooKeeper server (zklock.embedded.enabled=true) could not start: port " + port
						+ " (zklock.embedded.port) is already in use.");
			assertThat(analysis.getAction()).contains("Stop the process that is listening on port " + port)
				.contains("Choose another port with zklock.embedded.port")
				.contains("set zklock.embedded.port=0 to use a free one")
				.contains("set zklock.embedded.enabled=false and zklock.connect-string=localhost:" + port);
			assertThat(((EmbeddedZooKeeperPortInUseException) analysis.getCause()).getPort()).isEqualTo(port);
			// Spring Boot found the analyzer through spring.factories and printed the
			// report
			assertThat(output).contains("APPLICATION FAILED TO START")
				.contains("port " + port + " (zklock.embedded.port) is already in use")
				.doesNotContain("\tat dev.zklock.embedded.EmbeddedZooKeeper");
			// Checked before anything was created or started
			assertThat(dataDir).doesNotExist();
			assertThat(newThreads(threadsBefore)).noneMatch((name) -> name.startsWith("zkservermainrunner")
					|| name.startsWith("NIO") || name.startsWith("main-SendThread"));
			assertThat(busy.isBound()).isTrue();
		}
	}

	@Test
	void freePortStartsAndTheClientConnects() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		runner().withPropertyValues("zklock.embedded.port=" + port).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(EmbeddedZooKeeper.class).getConnectString()).endsWith(":" + port);
			assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().isConnected()).isTrue();
		});
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(EmbeddedZooKeeperAutoConfiguration.class, ZkLockAutoConfiguration.class))
			.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.data-dir=" + this.dir.resolve("zk"));
	}

	private static Set<String> newThreads(Set<Thread> before) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && !before.contains(thread))
			.map(Thread::getName)
			.collect(Collectors.toSet());
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ EmbeddedZooKeeperAutoConfiguration.class, ZkLockAutoConfiguration.class })
	static class App {

	}

}
