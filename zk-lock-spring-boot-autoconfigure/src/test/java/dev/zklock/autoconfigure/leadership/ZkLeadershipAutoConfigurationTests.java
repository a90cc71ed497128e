package dev.zklock.autoconfigure.leadership;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.health.ZkLockHealthContributorAutoConfiguration;
import dev.zklock.autoconfigure.metrics.ZkLockMetricsAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.leadership.ZkLeadership;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code zklock.leadership.*}: bound, checked at startup (a failure report naming the
 * property and its value), and applied to the auto-configured {@link ZkLeadership}, which
 * joins the configured groups at start; its groups in the health details and in the
 * meters.
 */
@Timeout(90)
class ZkLeadershipAutoConfigurationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLeadershipAutoConfiguration.class,
					ZkLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s");
	}

	@Test
	void theBeanIsSetFromThePropertiesAndJoinsTheGroupsAtStart() {
		runner()
			.withPropertyValues("zklock.leadership.root-path=/elected", "zklock.leadership.on-suspended=step-down",
					"zklock.leadership.hand-off-timeout=5s", "zklock.leadership.groups=billing,reports")
			.run((context) -> {
				ZkLeadership leadership = context.getBean(ZkLeadership.class);
				assertThat(leadership.getRootPath()).isEqualTo("/elected");
				assertThat(leadership.getOnSuspended()).isEqualTo(OnSuspended.STEP_DOWN);
				assertThat(leadership.getHandOffTimeout()).isEqualTo(Duration.ofSeconds(5));
				assertThat(leadership.getGroups()).containsExactly("billing", "reports");
				assertThat(leadership.isRunning()).isTrue();
				eventually().untilAsserted(() -> {
					assertThat(leadership.isLeader("billing")).isTrue();
					assertThat(leadership.isLeader("reports")).isTrue();
				});
				assertThat(leadership.members("billing")).singleElement()
					.satisfies((member) -> assertThat(member.epoch())
						.isEqualTo(leadership.currentTerm("billing").epoch()));
				assertThat(this.zk.children("/elected")).containsExactlyInAnyOrder("billing", "reports");
			});
	}

	@Test
	void indexedGroupsAreKnownKeys() {
		runner().withPropertyValues("zklock.leadership.groups[0]=billing", "zklock.leadership.groups[1]=reports")
			.run((context) -> assertThat(context).hasNotFailed()
				.getBean(ZkLeadership.class)
				.satisfies((leadership) -> assertThat(leadership.getGroups()).containsExactly("billing", "reports")));
	}

	@Test
	void theDefaultsAreTheEngines() {
		runner().run((context) -> {
			ZkLeadership leadership = context.getBean(ZkLeadership.class);
			assertThat(leadership.getRootPath()).isEqualTo("/leaders");
			assertThat(leadership.getOnSuspended()).isEqualTo(OnSuspended.LEAD_ON);
			assertThat(leadership.getHandOffTimeout()).isEqualTo(ZkLeadership.DEFAULT_HAND_OFF_TIMEOUT);
			assertThat(leadership.getGroups()).isEmpty();
		});
	}

	@Test
	void leadershipCanBeSwitchedOffOrReplaced() {
		runner().withPropertyValues("zklock.leadership.enabled=false", "zklock.leadership.groups=bad/name")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLeadership.class));
		runner().withUserConfiguration(OwnLeadership.class)
			.withPropertyValues("zklock.leadership.groups=billing")
			.run((context) -> assertThat(context).getBean(ZkLeadership.class)
				.isSameAs(context.getBean(OwnLeadership.class).leadership)
				.satisfies((leadership) -> assertThat(leadership.getGroups()).isEmpty()));
	}

	@Test
	void anInvalidRootPathFailsStartupNamingTheProperty() {
		assertReported("zklock.leadership.root-path", "leaders", "Leadership root path must be absolute");
		assertReported("zklock.leadership.root-path", "/", "Leadership root path must not be '/'");
		assertReported("zklock.leadership.root-path", "/zookeeper/leaders", "reserved tree /zookeeper");
		assertReported("zklock.leadership.root-path", "/leaders/", "must not end with '/'");
	}

	@Test
	void aRootPathThatMeetsTheLocksFailsStartup() {
		String apart = "must be apart from zklock.lock.root-path '/locks' (neither equal to it nor one inside the "
				+ "other)";
		assertReported("zklock.leadership.root-path", "/locks", apart);
		assertReported("zklock.leadership.root-path", "/locks/leaders", apart);
		assertReported(Map.of("zklock.lock.root-path", "/app/locks"), "zklock.leadership.root-path", "/app",
				"must be apart from zklock.lock.root-path '/app/locks'");
	}

	@Test
	void anInvalidGroupNameFailsStartupNamingItsIndex() {
		assertReported("zklock.leadership.groups[1]", "billing/eu", "Leader group name 'billing/eu' contains '/'");
		assertReported("zklock.leadership.groups[1]", "..", "Leader group name must not be '..'");
	}

	@Test
	void theHealthDetailsShowEachGroupsPartAndStayUp() {
		runner().withPropertyValues("zklock.leadership.groups=billing").run((first) -> {
			ZkLeadership leader = first.getBean(ZkLeadership.class);
			eventually().until(() -> leader.isLeader("billing"));
			runner().withPropertyValues("zklock.leadership.groups=billing,audit").run((second) -> {
				ZkLeadership other = second.getBean(ZkLeadership.class);
				eventually().until(() -> other.isLeader("audit") && other.candidate("billing") != null);
				Health health = second.getBean(ZkLockHealthIndicator.class).health(true);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("leadership",
						Map.of("audit", "LEADER", "billing", "CANDIDATE"));
				assertThat(first.getBean(ZkLockHealthIndicator.class).health(true).getDetails())
					.containsEntry("leadership", Map.of("billing", "LEADER"));
				other.stop();
				Health stopped = second.getBean(ZkLockHealthIndicator.class).health(true);
				assertThat(stopped.getStatus()).isEqualTo(Status.UP);
				assertThat(stopped.getDetails()).containsEntry("leadership",
						Map.of("audit", "NOT_JOINED", "billing", "NOT_JOINED"));
			});
		});
	}

	@Test
	void withoutLeadershipTheHealthHasNoLeadershipDetail() {
		runner().withPropertyValues("zklock.leadership.enabled=false")
			.run((context) -> assertThat(context.getBean(ZkLockHealthIndicator.class).health(true).getDetails())
				.doesNotContainKey("leadership"));
	}

	@Test
	void eachGroupHasItsMetersWithValuesAfterATerm() {
		runner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
							CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
			.withPropertyValues("zklock.leadership.groups=billing")
			.run((context) -> {
				ZkLeadership leadership = context.getBean(ZkLeadership.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				eventually().until(() -> leadership.isLeader("billing"));
				long firstEpoch = leadership.currentTerm("billing").epoch();
				assertThat(meters.get("zklock.leadership.terms").tag("group", "billing").functionCounter().count())
					.isEqualTo(1);
				assertThat(meters.get("zklock.leadership.leading").tag("group", "billing").gauge().value())
					.isEqualTo(1);
				assertThat(meters.get("zklock.leadership.handoffs").tag("group", "billing").functionCounter().count())
					.isZero();
				// Hand over: alone in the group, it queues again and leads a second term
				leadership.yieldLeadership("billing");
				eventually().until(() -> leadership.isLeader("billing")
						&& leadership.currentTerm("billing").epoch() != firstEpoch);
				assertThat(meters.get("zklock.leadership.terms").tag("group", "billing").functionCounter().count())
					.isEqualTo(2);
				assertThat(meters.get("zklock.leadership.handoffs").tag("group", "billing").functionCounter().count())
					.isEqualTo(1);
				assertThat(
						meters.get("zklock.leadership.time.leading").tag("group", "billing").functionCounter().count())
					.isPositive();
				assertThat(meters.get("zklock.leadership.handoff.time").tag("group", "billing").functionCounter())
					.satisfies((counter) -> {
						assertThat(counter.count()).isGreaterThanOrEqualTo(0);
						assertThat(counter.getId().getBaseUnit()).isEqualTo("seconds");
						assertThat(counter.getId().getDescription()).isNotBlank();
					});
				assertThat(meters.get("zklock.leadership.interrupted.work")
					.tag("group", "billing")
					.functionCounter()
					.count()).isZero();
				// A group added once the application runs gets its meters when it leads
				leadership.addGroup("late");
				// Until the grant is heard the meter is not there: find, not get, which
				// would throw something other than an AssertionError
				eventually().untilAsserted(
						() -> assertThat(meters.find("zklock.leadership.leading").tag("group", "late").gauge())
							.isNotNull()
							.satisfies((gauge) -> assertThat(gauge.value()).isEqualTo(1)));
			});
	}

	private void assertReported(String property, String value, String reason) {
		assertReported(Map.of(), property, value, reason);
	}

	/**
	 * Start with the property set, and check the report Spring Boot's analyzers make of
	 * the failure: it names the property, its value and the reason.
	 */
	private void assertReported(Map<String, String> others, String property, String value, String reason) {
		String[] pairs = others.entrySet().stream().map((e) -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
		ApplicationContextRunner runner = runner().withPropertyValues(pairs);
		if (property.startsWith("zklock.leadership.groups[")) {
			runner = runner.withPropertyValues("zklock.leadership.groups[0]=billing");
		}
		runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class);
			StandardEnvironment environment = new StandardEnvironment();
			environment.getPropertySources().addFirst(new MapPropertySource("test", Map.of(property, value)));
			FailureAnalysis analysis = analyze(failure, environment);
			assertThat(analysis.getDescription()).as(property + "=" + value)
				.startsWith("Invalid value '" + value + "' for configuration property '" + property + "'")
				.contains(reason);
		});
	}

	private static FailureAnalysis analyze(Throwable failure, Environment environment) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader
			.forDefaultResourceLocation(ZkLeadershipAutoConfigurationTests.class.getClassLoader())
			.load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, environment),
					SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
					}));
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No analyzer reported " + failure);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnLeadership {

		@Nullable ZkLeadership leadership;

		@Bean
		ZkLeadership myLeadership(ZkLockRegistry registry) {
			this.leadership = new ZkLeadership(registry);
			return this.leadership;
		}

	}

}
