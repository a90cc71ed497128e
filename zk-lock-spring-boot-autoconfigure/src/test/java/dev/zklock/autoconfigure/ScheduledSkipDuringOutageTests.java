package dev.zklock.autoconfigure;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;
import dev.zklock.autoconfigure.metrics.ZkLockMetricsAutoConfiguration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystemProperty;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A scheduled job with {@code onLocked = SKIP} while ZooKeeper is down (issue 34, item
 * 3): every tick is skipped at once, without an exception, and counted in
 * {@code zklock.acquire} as {@code skipped_unavailable}; the log has one line per
 * connection state change, not an ERROR with a stack trace per tick. A real application
 * with Spring Boot's logging system and scheduler, the console captured.
 */
// The first start of Spring Boot and ZooKeeper in a JVM takes 20 s and more on a loaded
// machine
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class ScheduledSkipDuringOutageTests {

	private static final String CONSOLE_PATTERN = "%level [%logger] %msg%n";

	/** The in-process server's lines, which a user of a real ensemble does not see. */
	private static final Pattern SERVER_LINE = Pattern.compile(
			"^(TRACE|DEBUG|INFO|WARN|ERROR) +\\[(org\\.apache\\.zookeeper\\.server|org\\.apache\\.curator\\.test)");

	private static final Pattern STACK_LINE = Pattern.compile("^\\s+at |^Caused by: |^\\s+\\.\\.\\. \\d+ more");

	/** Ticks skipped during the outage before the log is read. */
	private static final int TICKS = 20;

	/**
	 * Spring Boot keeps {@code logging.pattern.console} in a system property, which
	 * outlives the application: later tests in this JVM get Boot's own pattern back.
	 */
	@AfterEach
	void restoreConsolePattern() {
		System.clearProperty(LoggingSystemProperty.CONSOLE_PATTERN.getEnvironmentVariableName());
	}

	@Test
	void aSkippingJobLogsTheOutageOnceAndCountsEveryTick(CapturedOutput output) throws Exception {
		int port = freePort();
		try (TestingServer server = new TestingServer(port, true);
				ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
					.web(WebApplicationType.NONE)
					.bannerMode(Banner.Mode.OFF)
					.registerShutdownHook(false)
					.properties("zklock.connect-string=127.0.0.1:" + port, "zklock.connection-timeout=2s",
							"zklock.session-timeout=30s", "logging.pattern.console=" + CONSOLE_PATTERN)
					.run()) {
			Ticks ticks = context.getBean(Ticks.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> count(meters, "acquired") >= 2);
			int from = output.getOut().length();
			server.stop();
			await().atMost(Duration.ofSeconds(30)).until(() -> count(meters, "skipped_unavailable") >= TICKS);
			long skipped = count(meters, "skipped_unavailable");
			int runs = ticks.runs();
			List<String> window = output.getOut()
				.substring(from)
				.lines()
				.filter((line) -> !SERVER_LINE.matcher(line).find())
				.toList();
			long stackLines = window.stream().filter((line) -> STACK_LINE.matcher(line).find()).count();
			System.err.println("[measure] scheduled SKIP job, ZooKeeper down: " + skipped + " ticks skipped, "
					+ window.size() + " lines logged (" + stackLines + " of stack traces), "
					+ String.format("%.2f", (double) window.size() / skipped) + " lines per tick");
			String shown = String.join("\n", window);
			assertThat(window).as("lines logged during the outage:%n%s", shown)
				.singleElement()
				.asString()
				.startsWith("WARN [dev.zklock.core.SessionTracker] ZooKeeper connection SUSPENDED");
			assertThat(stackLines).isZero();
			assertThat(count(meters, "error")).as("ticks counted as errors").isZero();
			server.restart();
			await().atMost(Duration.ofSeconds(30)).until(() -> ticks.runs() > runs);
			assertThat(output.getOut().substring(from))
				.contains("INFO [dev.zklock.core.SessionTracker] ZooKeeper connection RECONNECTED");
		}
	}

	private static long count(MeterRegistry meters, String outcome) {
		Timer timer = meters.find("zklock.acquire").tag("lock.name", "report").tag("outcome", outcome).timer();
		return (timer != null) ? timer.count() : 0;
	}

	private static int freePort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, ZkLockMetricsAutoConfiguration.class,
			AopAutoConfiguration.class, MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
			SimpleMetricsExportAutoConfiguration.class, ObservationAutoConfiguration.class,
			TaskSchedulingAutoConfiguration.class })
	static class App {

		@Bean
		Ticks ticks() {
			return new Ticks();
		}

	}

	static class Ticks {

		private final AtomicInteger runs = new AtomicInteger();

		@Scheduled(fixedDelay = 100)
		@DistributedLock(key = "'report'", name = "report", waitAtMost = "0s", onLocked = OnLocked.SKIP)
		public void report() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

}
