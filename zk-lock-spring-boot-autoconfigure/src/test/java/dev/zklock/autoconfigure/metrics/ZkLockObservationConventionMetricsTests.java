package dev.zklock.autoconfigure.metrics;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.template.observation.DefaultZkLockAcquireObservationConvention;
import dev.zklock.template.observation.DefaultZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockObservationContext;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's {@link ZkLockAcquireObservationConvention} and
 * {@link ZkLockHeldObservationConvention} beans name and tag the meters the lock
 * observations become, for {@code @DistributedLock}, {@code @DistributedSemaphore} and
 * the template alike.
 */
@Timeout(120)
class ZkLockObservationConventionMetricsTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockMetricsAutoConfiguration.class, AopAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					ObservationAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString())
			.withUserConfiguration(Config.class);
	}

	@Test
	void conventionBeansChangeTheMetersNamesAndTags() {
		runner().withUserConfiguration(ConventionConfig.class).run((context) -> {
			assertThat(context.getBean(ZkLockTemplate.class)).isNotNull();
			Reports reports = context.getBean(Reports.class);
			reports.render("r-1");
			reports.print("r-2");
			context.getBean(ZkLockTemplate.class).execute("nightly-report", "report", null, () -> "done");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters).isInstanceOf(SimpleMeterRegistry.class);
			assertThat(meters.get("zklock.acquire")
				.tag("team", "reports")
				.tag("lock.name", "render")
				.tag("kind", "exclusive")
				.tag("outcome", "acquired")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("zklock.acquire")
				.tag("team", "reports")
				.tag("lock.name", "print")
				.tag("kind", "semaphore")
				.tag("outcome", "acquired")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("zklock.acquire").timers()).hasSize(3)
				.allSatisfy((timer) -> assertThat(timer.getId().getTag("team")).isEqualTo("reports"));
			assertThat(meters.get("reports.lock.held").tag("lock.name", "nightly-report").timer().count()).isEqualTo(1);
			assertThat(meters.get("reports.lock.held").timers()).hasSize(3)
				.allSatisfy((timer) -> assertThat(timer.getId().getTags()).extracting((tag) -> tag.getKey())
					.containsExactlyInAnyOrder("lock.name", "kind", "outcome", "error"));
			assertThat(meters.find("zklock.held").meters()).isEmpty();
		});
	}

	@Test
	void withoutConventionBeansTheMetersAreAsBefore() {
		runner().run((context) -> {
			Reports reports = context.getBean(Reports.class);
			reports.render("r-1");
			reports.print("r-2");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("zklock.acquire").timers()).extracting((timer) -> timer.getId().getTags())
				.allSatisfy((tags) -> assertThat(tags).extracting((tag) -> tag.getKey())
					.containsExactlyInAnyOrder("lock.name", "kind", "outcome", "error"));
			assertThat(meters.get("zklock.held").timers()).extracting((timer) -> timer.getId().getTag("kind"))
				.containsExactlyInAnyOrder("exclusive", "semaphore");
			assertThat(meters.get("zklock.held").timers())
				.allSatisfy((timer) -> assertThat(timer.getId().getTags()).extracting((tag) -> tag.getKey())
					.containsExactlyInAnyOrder("lock.name", "kind", "outcome", "error"));
			assertThat(meters.find("zklock.acquire").tagKeys("team").meters()).isEmpty();
		});
	}

	public static class Reports {

		@DistributedLock(key = "'report:' + #id", name = "render")
		public void render(String id) {
		}

		@DistributedSemaphore(key = "'printer'", name = "print", permits = 2)
		public void print(String id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ConventionConfig {

		@Bean
		ZkLockAcquireObservationConvention teamAcquireConvention() {
			return new DefaultZkLockAcquireObservationConvention() {

				@Override
				public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
					return super.getLowCardinalityKeyValues(context).and("team", "reports");
				}

			};
		}

		@Bean
		ZkLockHeldObservationConvention renamedHeldConvention() {
			return new DefaultZkLockHeldObservationConvention() {

				@Override
				public String getName() {
					return "reports.lock.held";
				}

			};
		}

	}

}
