package dev.zklock.autoconfigure.endpoint;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.endpoint.ZkClusterEndpoint.Cluster;
import dev.zklock.autoconfigure.view.ZkLockViewAutoConfiguration;
import dev.zklock.autoconfigure.view.ZkLockViewReports;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.Resource;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code zkcluster} endpoint and its page: off by default, on with one property,
 * every key across instances in one read, bad requests refused naming the value, and the
 * revocation only when enabled.
 */
@Timeout(90)
class ZkClusterEndpointTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLockViewAutoConfiguration.class,
					ZkClusterEndpointAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s",
					"zklock.view.report-interval=50ms", "management.endpoints.web.exposure.include=zkcluster");
	}

	@Test
	void offByDefault() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(ZkClusterEndpoint.class);
			assertThat(context).doesNotHaveBean(ZkLockViewReports.class);
		});
	}

	@Test
	void twoInstancesSeeEachOthersHoldsWithThreadAndLeaseState() {
		runner().withPropertyValues("zklock.view.enabled=true").run((first) -> {
			runner().withPropertyValues("zklock.view.enabled=true").run((second) -> {
				ZkLockRegistry firstRegistry = first.getBean(ZkLockRegistry.class);
				try (ZkLease lease = firstRegistry.acquireLease("stock:42", Duration.ofSeconds(10))) {
					ZkClusterEndpoint endpoint = second.getBean(ZkClusterEndpoint.class);
					eventually().untilAsserted(() -> {
						Cluster view = cluster(endpoint.view("stock:", null, null));
						assertThat(view.revocationEnabled()).isFalse();
						assertThat(view.instances()).hasSize(2);
						assertThat(view.instances().get(0).self()).isTrue();
						assertThat(view.keys()).singleElement().satisfies((key) -> {
							assertThat(key.key()).isEqualTo("stock:42");
							assertThat(key.inDoubt()).isFalse();
							assertThat(key.holders()).singleElement().satisfies((holder) -> {
								assertThat(holder.leaseState()).hasToString("HELD");
								assertThat(holder.reportedBy()).isEqualTo(holder.owner());
								assertThat(holder.sessionId()).isEqualTo(view.instances().get(1).sessionId());
								assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
							});
						});
					});
					assertThat(cluster(endpoint.view("other:", null, null)).keys()).isEmpty();
				}
				assertThat(second).doesNotHaveBean(ZkClusterRevocationWebExtension.class);
			});
		});
	}

	@Test
	void aReportIsPublishedWhileTheApplicationRunsAndGoneWhenItStops() throws Exception {
		CuratorFramework client = this.zk.newClient();
		runner().withPropertyValues("zklock.view.enabled=true", "zklock.view.instances-path=/ops/instances")
			.run((context) -> {
				eventually().until(() -> client.checkExists().forPath("/ops/instances") != null
						&& client.getChildren().forPath("/ops/instances").size() == 1);
				String node = client.getChildren().forPath("/ops/instances").get(0);
				String report = new String(client.getData().forPath("/ops/instances/" + node), StandardCharsets.UTF_8);
				assertThat(report).contains("participant=").contains("state=CONNECTED");
			});
		eventually().until(() -> client.getChildren().forPath("/ops/instances").isEmpty());
	}

	@Test
	void badRequestsAreRefusedNamingTheValue() {
		runner().withPropertyValues("zklock.view.enabled=true").run((context) -> {
			ZkClusterEndpoint endpoint = context.getBean(ZkClusterEndpoint.class);
			assertThatExceptionOfType(InvalidViewRequestException.class)
				.isThrownBy(() -> endpoint.view("a/b", null, null))
				.withMessageContaining("Key prefix 'a/b' cannot start a lock key");
			assertThatExceptionOfType(InvalidViewRequestException.class)
				.isThrownBy(() -> endpoint.view("x".repeat(100_000), null, null))
				.withMessageContaining("at most 1024 characters");
			assertThatExceptionOfType(InvalidViewRequestException.class)
				.isThrownBy(() -> endpoint.view(null, null, 5000))
				.withMessageContaining("but was 5000");
			assertThatExceptionOfType(InvalidViewRequestException.class)
				.isThrownBy(() -> endpoint.view("a\nb", null, null))
				.withMessageContaining("\\u000A");
		});
	}

	@Test
	void aRootPathWithMoreKeysThanTheBoundIsRefusedUnread() throws Exception {
		CuratorFramework client = this.zk.newClient();
		for (int i = 0; i < 4; i++) {
			client.create().creatingParentsIfNeeded().forPath("/big/k" + i);
		}
		runner().withPropertyValues("zklock.view.enabled=true", "zklock.lock.root-path=/big", "zklock.view.max-keys=3")
			.run((context) -> assertThatExceptionOfType(InvalidViewRequestException.class)
				.isThrownBy(() -> context.getBean(ZkClusterEndpoint.class).view(null, null, null))
				.withMessageContaining("/big has 4 children, more than the view lists (3)"));
	}

	@Test
	void thePageIsShippedInTheJarAndPutsEveryValueAsText() throws Exception {
		runner().withPropertyValues("zklock.view.enabled=true").run((context) -> {
			ZkClusterEndpoint endpoint = context.getBean(ZkClusterEndpoint.class);
			WebEndpointResponse<Resource> page = endpoint.page("page");
			assertThat(page.getStatus()).isEqualTo(200);
			String html = page.getBody().getContentAsString(StandardCharsets.UTF_8);
			assertThat(html).contains("<table id=\"keys\">").contains("textContent").doesNotContain("innerHTML");
			assertThat(html).as("nothing fetched from elsewhere").doesNotContain("http://").doesNotContain("https://");
			assertThat(endpoint.page("other").getStatus()).isEqualTo(404);
		});
	}

	@Test
	void revocationOnlyWhenEnabled() {
		runner().withPropertyValues("zklock.view.enabled=true", "zklock.endpoint.revocation-enabled=true")
			.run((context) -> {
				assertThat(cluster(context.getBean(ZkClusterEndpoint.class).view(null, null, null)).revocationEnabled())
					.isTrue();
				ZkClusterRevocationWebExtension extension = context.getBean(ZkClusterRevocationWebExtension.class);
				ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
				assertThat(extension.revoke("idle", SecurityContext.NONE).getStatus()).isEqualTo(404);
				ZkLease lease = registry.acquireLease("job:1", Duration.ofSeconds(10));
				try {
					WebEndpointResponse<Object> response = extension.revoke("job:1", SecurityContext.NONE);
					assertThat(response.getStatus()).isEqualTo(200);
					assertThat(response.getBody()).isInstanceOfSatisfying(KeyRevocation.Revocation.class,
							(revocation) -> assertThat(revocation.asked()).singleElement()
								.asString()
								.startsWith("/locks/job:1/"));
				}
				finally {
					lease.release();
				}
			});
	}

	@Test
	void anInstancesPathInsideTheLockRootFailsStartupNamingTheProperty() {
		runner().withPropertyValues("zklock.view.enabled=true", "zklock.view.instances-path=/locks/instances")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("zklock.view.instances-path")
				.hasMessageContaining("must be apart from zklock.lock.root-path '/locks'"));
	}

	private static Cluster cluster(WebEndpointResponse<Object> response) {
		assertThat(response.getStatus()).isEqualTo(200);
		return (Cluster) response.getBody();
	}

}
