package dev.zklock.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.state.ConnectionState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.annotation.OnLost;
import dev.zklock.test.ZkLockTestKit;
import dev.zklock.template.ZkLockTemplate;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Metric values after real calls through {@code @DistributedLock} and the template.
 */
@Timeout(120)
class ZkLockMetricsTests {

	/** The 4 s sessions of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(4));

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockMetricsAutoConfiguration.class, AopAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					ObservationAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + zk.connectString())
			.withUserConfiguration(Config.class);
	}

	@Test
	void acquireAndHeldTimersCountCallsAndOutcomes() throws Exception {
		runner().run((context) -> {
			zk.useApplication(context.getBean(ZkLockRegistry.class));
			ZkLockRegistry otherJvm = zk.newParticipant();
			Billing billing = context.getBean(Billing.class);
			for (int i = 0; i < 3; i++) {
				billing.charge("a-" + i);
			}
			ZkLock held = otherJvm.obtain("bill:busy");
			held.lock();
			try {
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> billing.charge("busy"));
				assertThat(billing.chargeIfFree("busy")).isNull();
				assertThat(billing.chargeOrQueue("busy")).isEqualTo("queued busy");
			}
			finally {
				held.unlock();
			}
			context.getBean(ZkLockTemplate.class).execute("nightly-report", "report", null, () -> "done");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			String name = "Billing.charge";
			assertThat(meters.get("zklock.acquire")
				.tag("lock.name", "Billing.chargeIfFree")
				.tag("outcome", "skipped")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("zklock.acquire")
				.tag("lock.name", "billing-queue")
				.tag("outcome", "fallback")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("zklock.acquire").tag("lock.name", name).tag("outcome", "acquired").timer().count())
				.isEqualTo(3);
			assertThat(meters.get("zklock.acquire").tag("lock.name", name).tag("outcome", "timeout").timer().count())
				.isEqualTo(1);
			assertThat(meters.get("zklock.held").tag("lock.name", name).timer().count()).isEqualTo(3);
			assertThat(meters.get("zklock.held").tag("lock.name", "nightly-report").timer().count()).isEqualTo(1);
			assertThat(meters.get("zklock.acquire").timers())
				.allSatisfy((timer) -> assertThat(timer.getId().getTag("lock.name")).isIn(name, "nightly-report",
						"Billing.chargeIfFree", "billing-queue"));
			// What was taken is a tag of its own, for locks, read/write sides and permits
			// alike
			assertThat(meters.get("zklock.acquire").timers())
				.allSatisfy((timer) -> assertThat(timer.getId().getTag("kind")).isEqualTo("exclusive"));
			assertThat(meters.get("zklock.held").timers())
				.allSatisfy((timer) -> assertThat(timer.getId().getTag("kind")).isEqualTo("exclusive"));
			assertThat(meters.get("zklock.active").gauge().value()).isZero();
			assertThat(meters.get("zklock.waiting").gauge().value()).isZero();
			assertThat(meters.get("zklock.handoffs").counter().count()).isZero();
			assertThat(meters.get("zklock.lost").counter().count()).isZero();
		});
	}

	@Test
	void aHoldWhoseLeaseIsLostEndsWithOutcomeLost() {
		runner().run((context) -> {
			zk.useApplication(context.getBean(ZkLockRegistry.class));
			Billing billing = context.getBean(Billing.class);
			billing.charge("ok");
			CountDownLatch holding = new CountDownLatch(1);
			CompletableFuture<Void> run = CompletableFuture.runAsync(() -> billing.chargeSlowly("slow", holding),
					TestThreads.EXECUTOR);
			assertThat(holding.await(20, TimeUnit.SECONDS)).isTrue();
			zk.assertThatKey("bill:slow").isHeldByApplication().hasWaiters(0);
			zk.deleteHeldNode("bill:slow");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> run.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("zklock.held")
				.tag("lock.name", "billing-stopped")
				.tag("outcome", "lost")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("zklock.held")
				.tag("lock.name", "Billing.charge")
				.tag("outcome", "released")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("zklock.lost").counter().count()).isEqualTo(1);
		});
	}

	@Test
	void sessionEventsAreCounted() {
		runner().withPropertyValues("zklock.session-timeout=4s").run((context) -> {
			zk.useApplication(context.getBean(ZkLockRegistry.class));
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			zk.stopServer();
			awaitSessionEvent(meters, "SUSPENDED");
			zk.restartServer();
			awaitSessionEvent(meters, "RECONNECTED");
			assertThat(meters.get("zklock.session.events").tag("state", "SUSPENDED").counter().count()).isEqualTo(1);
			assertThat(meters.get("zklock.session.events").tag("state", "RECONNECTED").counter().count()).isEqualTo(1);
		});
	}

	@Test
	void everyMeterIsDescribedAndAlertableSeriesExistAtStartup() {
		runner().run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			// before any lock call: what users alert on the absence of is already there,
			// at 0
			assertThat(meters.get("zklock.lost").counter().count()).isZero();
			for (ConnectionState state : List.of(ConnectionState.SUSPENDED, ConnectionState.LOST,
					ConnectionState.RECONNECTED, ConnectionState.READ_ONLY)) {
				assertThat(meters.get("zklock.session.events").tag("state", state.name()).counter().count())
					.as("zklock.session.events{state=%s}", state)
					.isZero();
			}
			lockThroughEveryPath(context.getBean(Billing.class), context.getBean(ZkLockTemplate.class));
			List<Meter> zkLockMeters = zkLockMeters(meters);
			assertThat(zkLockMeters).extracting((meter) -> meter.getId().getName())
				.contains("zklock.active", "zklock.waiting", "zklock.handoffs", "zklock.lost", "zklock.session.events",
						"zklock.acquire", "zklock.acquire.active", "zklock.held", "zklock.held.active");
			assertThat(zkLockMeters)
				.allSatisfy((meter) -> assertThat(meter.getId().getDescription()).as("description of %s", meter.getId())
					.isNotBlank());
		});
	}

	@Test
	void prometheusScrapeHasNoEmptyHelpLine() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockMetricsAutoConfiguration.class, AopAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
					ObservationAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + zk.connectString())
			.withUserConfiguration(Config.class)
			.run((context) -> {
				lockThroughEveryPath(context.getBean(Billing.class), context.getBean(ZkLockTemplate.class));
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				List<String> help = scrape.lines().filter((line) -> line.startsWith("# HELP zklock_")).toList();
				// the observation timers and long task timers, and the binder's gauges
				// and counters
				assertThat(help).anyMatch((line) -> line.startsWith("# HELP zklock_acquire_seconds "))
					.anyMatch((line) -> line.startsWith("# HELP zklock_acquire_active_seconds "))
					.anyMatch((line) -> line.startsWith("# HELP zklock_held_seconds "))
					.anyMatch((line) -> line.startsWith("# HELP zklock_held_active_seconds "))
					.anyMatch((line) -> line.startsWith("# HELP zklock_session_events_total "))
					.anyMatch((line) -> line.startsWith("# HELP zklock_lost_total "));
				assertThat(help).allSatisfy((line) -> assertThat(line).matches("# HELP zklock_\\w+ \\S.*"));
				assertThat(scrape).contains("zklock_session_events_total{state=\"LOST\"} 0.0");
			});
	}

	@Test
	void withoutMeterRegistryNothingFails() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockMetricsAutoConfiguration.class, AopAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + zk.connectString())
			.withUserConfiguration(Config.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(MeterRegistry.class);
				context.getBean(Billing.class).charge("x");
			});
	}

	private static void lockThroughEveryPath(Billing billing, ZkLockTemplate template) {
		billing.charge("described");
		assertThat(billing.chargeIfFree("described")).isEqualTo("charged described");
		template.execute("described-report", "report", null, () -> "done");
	}

	private static List<Meter> zkLockMeters(MeterRegistry meters) {
		return meters.getMeters().stream().filter((meter) -> meter.getId().getName().startsWith("zklock.")).toList();
	}

	private static void awaitSessionEvent(MeterRegistry meters, String state) {
		// the counter exists from startup at 0: wait for it to count, not to appear
		await().atMost(Duration.ofSeconds(40))
			.untilAsserted(() -> assertThat(meters.get("zklock.session.events").tag("state", state).counter().count())
				.as("%s session events", state)
				.isPositive());
	}

	public static class Billing {

		@DistributedLock(key = "'bill:' + #account", waitMs = 0)
		public void charge(String account) {
		}

		@DistributedLock(key = "'bill:' + #account", waitAtMost = "0s", onLocked = OnLocked.SKIP)
		public String chargeIfFree(String account) {
			return "charged " + account;
		}

		@DistributedLock(key = "'bill:' + #account", name = "billing-queue", waitMs = 0, fallback = "queue")
		public String chargeOrQueue(String account) {
			return "charged " + account;
		}

		String queue(String account) {
			return "queued " + account;
		}

		@DistributedLock(key = "'bill:' + #account", name = "billing-stopped", onLost = OnLost.INTERRUPT)
		public void chargeSlowly(String account, CountDownLatch holding) {
			holding.countDown();
			try {
				Thread.sleep(30_000);
			}
			catch (InterruptedException ex) {
				// Stopped: the lease is lost
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Billing billing() {
			return new Billing();
		}

	}

}
