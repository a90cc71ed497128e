package dev.zklock.autoconfigure.endpoint;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.endpoint.ZkLeadersEndpoint.Group;
import dev.zklock.autoconfigure.endpoint.ZkLeadersEndpoint.Leaders;
import dev.zklock.autoconfigure.leadership.ZkLeadershipAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.TimingSensitive;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The {@code zkleaders} endpoint: every group under the root path read from ZooKeeper,
 * the same on every instance, with its leader and its candidates in queue order, whoever
 * they are; this instance's part apart; one group by name; and, only when enabled, the
 * request that a group's leader hand over.
 */
@Timeout(90)
class ZkLeadersEndpointTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLeadershipAutoConfiguration.class,
					ZkLeadersEndpointAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s",
					"management.endpoints.web.exposure.include=zkleaders");
	}

	@Test
	@TimingSensitive
	void twoInstancesShowTheSameGroupsAndTheNewLeaderWithinASecond() {
		runner().withPropertyValues("zklock.leadership.groups=billing,reports").run((first) -> {
			ZkLeadership firstLeadership = first.getBean(ZkLeadership.class);
			eventually().until(() -> firstLeadership.isLeader("billing") && firstLeadership.isLeader("reports"));
			runner().withPropertyValues("zklock.leadership.groups=billing").run((second) -> {
				ZkLeadership secondLeadership = second.getBean(ZkLeadership.class);
				ZkLeadersEndpoint firstEndpoint = first.getBean(ZkLeadersEndpoint.class);
				ZkLeadersEndpoint secondEndpoint = second.getBean(ZkLeadersEndpoint.class);
				eventually().untilAsserted(() -> assertThat(billing(secondEndpoint.leaders()).candidates()).hasSize(1));
				Leaders fromFirst = firstEndpoint.leaders();
				Leaders fromSecond = secondEndpoint.leaders();
				assertThat(fromSecond.groups()).isEqualTo(fromFirst.groups());
				assertThat(fromFirst.rootPath()).isEqualTo("/leaders");
				assertThat(fromFirst.truncated()).isFalse();
				assertThat(fromFirst.groups()).extracting(Group::name).containsExactly("billing", "reports");
				Group billing = billing(fromFirst);
				assertThat(billing.path()).isEqualTo("/leaders/billing");
				assertThat(billing.leader()).isNotNull();
				assertThat(billing.leader().epoch()).isEqualTo(firstLeadership.currentTerm("billing").epoch());
				assertThat(billing.leader().participantId())
					.isEqualTo(firstLeadership.candidate("billing").participantId());
				assertThat(billing.leader().host()).isNotEmpty();
				assertThat(billing.leader().since()).isNotNull();
				assertThat(billing.candidates()).singleElement().satisfies((candidate) -> {
					assertThat(candidate.participantId())
						.isEqualTo(secondLeadership.candidate("billing").participantId());
					assertThat(candidate.joined()).isAfterOrEqualTo(billing.leader().since());
				});
				// This instance's part differs from one instance to the other
				assertThat(fromFirst.instance().groups()).extracting("name", "joined", "leading")
					.containsExactly(tuple("billing", true, true), tuple("reports", true, true));
				assertThat(fromSecond.instance().groups()).singleElement().satisfies((group) -> {
					assertThat(group.name()).isEqualTo("billing");
					assertThat(group.leading()).isFalse();
					assertThat(group.epoch()).isNull();
				});
				assertThat(fromSecond.instance().participantId())
					.isEqualTo(secondLeadership.candidate("billing").participantId());

				// The leader goes: within a second of polling, both show the other
				// leading
				firstLeadership.stop();
				long stopped = System.nanoTime();
				eventually().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
					Group now = billing(secondEndpoint.leaders());
					assertThat(now.leader()).isNotNull();
					assertThat(now.candidates()).isEmpty();
					assertThat(secondLeadership.isLeader("billing")).isTrue();
					assertThat(now.leader().epoch()).isEqualTo(secondLeadership.currentTerm("billing").epoch());
				});
				assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(Duration.ofSeconds(1));
				assertThat(firstEndpoint.leaders().groups()).isEqualTo(secondEndpoint.leaders().groups());
				// Nobody leads reports now: it is listed, empty
				assertThat(secondEndpoint.leaders().groups().get(1)).satisfies((reports) -> {
					assertThat(reports.name()).isEqualTo("reports");
					assertThat(reports.leader()).isNull();
					assertThat(reports.candidates()).isEmpty();
				});
			});
		});
	}

	@Test
	void aCuratorLeaderSelectorIsShownWithItsId() throws Exception {
		CuratorFramework client = this.zk.newClient();
		CountDownLatch leading = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		try (LeaderSelector selector = new LeaderSelector(client, "/leaders/reports",
				new LeaderSelectorListenerAdapter() {

					@Override
					public void takeLeadership(CuratorFramework curator) throws Exception {
						leading.countDown();
						release.await();
					}

				})) {
			selector.setId("curator-reporter@host-7");
			selector.start();
			assertThat(leading.await(20, TimeUnit.SECONDS)).isTrue();
			runner().withPropertyValues("zklock.leadership.groups=reports").run((context) -> {
				ZkLeadersEndpoint endpoint = context.getBean(ZkLeadersEndpoint.class);
				eventually().untilAsserted(() -> assertThat(endpoint.group("reports").group().candidates()).hasSize(1));
				Group reports = endpoint.group("reports").group();
				assertThat(reports.leader()).isNotNull();
				assertThat(reports.leader().participantId()).isEqualTo("curator-reporter@host-7");
				assertThat(reports.leader().host()).isEqualTo("host-7");
				assertThat(endpoint.group("reports").instance().leading()).isFalse();
				assertThat(endpoint.group("reports").instance().joined()).isTrue();
				release.countDown();
				eventually().until(() -> endpoint.group("reports").instance().leading());
			});
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void oneGroupByNameAndAnInvalidNameIsABadRequest() {
		runner().withPropertyValues("zklock.leadership.groups=billing").run((context) -> {
			ZkLeadersEndpoint endpoint = context.getBean(ZkLeadersEndpoint.class);
			eventually().until(() -> endpoint.group("billing").instance().leading());
			assertThat(endpoint.group("billing").group().leader()).isNotNull();
			// A group nobody is in, and which does not exist, is shown empty
			assertThat(endpoint.group("nobody").group()).satisfies((group) -> {
				assertThat(group.path()).isEqualTo("/leaders/nobody");
				assertThat(group.leader()).isNull();
				assertThat(group.candidates()).isEmpty();
			});
			assertThat(endpoint.group("nobody").instance().joined()).isFalse();
			assertThatExceptionOfType(InvalidLeaderGroupException.class).isThrownBy(() -> endpoint.group("a/b"))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("Leader group name 'a/b' contains '/'"));
			assertThatExceptionOfType(InvalidLeaderGroupException.class).isThrownBy(() -> endpoint.group("x\u0001"))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("x\\u0001").doesNotContain("\u0001"));
		});
	}

	@Test
	void withoutLeadersTheRootPathListsNoGroups() {
		runner().run((context) -> {
			Leaders leaders = context.getBean(ZkLeadersEndpoint.class).leaders();
			assertThat(leaders.groups()).isEmpty();
			assertThat(leaders.truncated()).isFalse();
			assertThat(leaders.instance().groups()).isEmpty();
			assertThat(leaders.instance().participantId()).contains("@");
		});
	}

	@Test
	void theEndpointIsOnlyThereWhenExposedAndWithLeadership() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLeadershipAutoConfiguration.class,
					ZkLeadersEndpointAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString())
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLeadersEndpoint.class));
		runner().withPropertyValues("zklock.leadership.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLeadersEndpoint.class));
	}

	@Test
	void revocationIsOnlyThereWhenEnabledAndHandsOver() {
		runner().run((context) -> assertThat(context).hasSingleBean(ZkLeadersEndpoint.class)
			.doesNotHaveBean(ZkLeadersRevocationWebExtension.class));
		runner().withPropertyValues("zklock.leadership.groups=billing", "zklock.endpoint.revocation-enabled=true")
			.run((first) -> {
				ZkLeadership firstLeadership = first.getBean(ZkLeadership.class);
				eventually().until(() -> firstLeadership.isLeader("billing"));
				long firstEpoch = firstLeadership.currentTerm("billing").epoch();
				runner().withPropertyValues("zklock.leadership.groups=billing").run((second) -> {
					ZkLeadership secondLeadership = second.getBean(ZkLeadership.class);
					eventually().until(() -> firstLeadership.members("billing").size() == 2);
					WebEndpointResponse<Object> response = extension(first).revoke("billing", SecurityContext.NONE);
					assertThat(response.getStatus()).isEqualTo(200);
					assertThat(response.getBody())
						.isInstanceOfSatisfying(ZkLeadersRevocationWebExtension.Revocation.class, (revocation) -> {
							assertThat(revocation.group()).isEqualTo("billing");
							assertThat(revocation.path()).isEqualTo("/leaders/billing");
							assertThat(revocation.asked()).singleElement().asString().startsWith("/leaders/billing/");
						});
					// The leader hands over to the next in the queue, and queues again
					eventually().until(() -> secondLeadership.isLeader("billing"));
					assertThat(secondLeadership.currentTerm("billing").epoch()).isGreaterThan(firstEpoch);
					eventually().until(() -> firstLeadership.candidate("billing") != null
							&& firstLeadership.members("billing").size() == 2);
					assertThat(firstLeadership.isLeader("billing")).isFalse();
				});
			});
	}

	@Test
	void revocationOfAGroupNobodyLeadsAsksNobody() {
		runner().withPropertyValues("zklock.endpoint.revocation-enabled=true").run((context) -> {
			WebEndpointResponse<Object> response = extension(context).revoke("idle", SecurityContext.NONE);
			assertThat(response.getStatus()).isEqualTo(404);
			assertThat(response.getBody()).isInstanceOfSatisfying(ZkLeadersRevocationWebExtension.Refusal.class,
					(refusal) -> {
						assertThat(refusal.group()).isEqualTo("idle");
						assertThat(refusal.reason()).isEqualTo("NOT_HELD");
					});
			assertThatExceptionOfType(InvalidLeaderGroupException.class)
				.isThrownBy(() -> extension(context).revoke("a/b", SecurityContext.NONE));
			assertThat(this.zk.children("/leaders")).isEmpty();
		});
	}

	private static ZkLeadersRevocationWebExtension extension(AssertableApplicationContext context) {
		return context.getBean(ZkLeadersRevocationWebExtension.class);
	}

	private static Group billing(Leaders leaders) {
		return leaders.groups().stream().filter((group) -> group.name().equals("billing")).findFirst().orElseThrow();
	}

}
