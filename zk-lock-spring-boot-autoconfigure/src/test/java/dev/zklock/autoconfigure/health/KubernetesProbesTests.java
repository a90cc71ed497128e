package dev.zklock.autoconfigure.health;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Boot's Kubernetes probes of an application on Tomcat, over HTTP, while its
 * ZooKeeper is stopped and started again: the liveness probe never follows ZooKeeper; by
 * default the readiness probe does not either (as for Boot's own indicators of shared
 * services), and with {@code zklock} in the readiness group, as docs/monitoring.md shows,
 * it takes the pod out of traffic until ZooKeeper is back.
 */
@Timeout(180)
class KubernetesProbesTests {

	private static final String LIVENESS = "/actuator/health/liveness";

	private static final String READINESS = "/actuator/health/readiness";

	private static final String HEALTH = "/actuator/health";

	/** The readiness group of docs/monitoring.md's "Kubernetes probes". */
	private static final String ZKLOCK_IN_READINESS = "management.endpoint.health.group.readiness.include=readinessState,zklock";

	// Far above a status change on a loaded machine, far below the @Timeout
	private static final Duration CHANGE = Duration.ofSeconds(40);

	private static final JsonMapper json = JsonMapper.builder().build();

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	void byDefaultZooKeeperDownFailsOnlyTheAggregateNeitherProbe() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			int port = port(context);
			assertStatus(port, HEALTH, 200, "UP");
			assertStatus(port, READINESS, 200, "UP");
			this.zk.server().stop();
			awaitStatus(port, HEALTH, 503, "DOWN");
			assertStatus(port, LIVENESS, 200, "UP");
			assertStatus(port, READINESS, 200, "UP");
			this.zk.server().restart();
			awaitStatus(port, HEALTH, 200, "UP");
		}
	}

	@Test
	void withZklockInTheReadinessGroupZooKeeperDownMakesThePodNotReadyButStillLive() throws Exception {
		try (ConfigurableApplicationContext context = start(ZKLOCK_IN_READINESS)) {
			int port = port(context);
			assertStatus(port, READINESS, 200, "UP");
			assertStatus(port, LIVENESS, 200, "UP");
			this.zk.server().stop();
			// Suspended first (OUT_OF_SERVICE), then the session is lost (DOWN): both 503
			await().atMost(CHANGE)
				.pollInterval(Duration.ofMillis(50))
				.untilAsserted(() -> assertThat(get(port, READINESS).statusCode()).isEqualTo(503));
			assertStatus(port, LIVENESS, 200, "UP");
			awaitStatus(port, READINESS, 503, "DOWN");
			assertStatus(port, LIVENESS, 200, "UP");
			this.zk.server().restart();
			awaitStatus(port, READINESS, 200, "UP");
			assertStatus(port, LIVENESS, 200, "UP");
		}
	}

	private ConfigurableApplicationContext start(String... more) {
		return new SpringApplicationBuilder(ProbedApplication.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"management.endpoint.health.probes.enabled=true",
					"zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s",
					"zklock.connection-timeout=2s")
			.properties(more)
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private void awaitStatus(int port, String path, int code, String status) {
		await().atMost(CHANGE)
			.pollInterval(Duration.ofMillis(50))
			.untilAsserted(() -> assertStatus(port, path, code, status));
	}

	private void assertStatus(int port, String path, int code, String status) throws Exception {
		HttpResponse<String> response = get(port, path);
		assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(code);
		assertThat(json.readValue(response.body(), Map.class)).as(path).containsEntry("status", status);
	}

	private HttpResponse<String> get(int port, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("Accept", "application/json")
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ProbedApplication {

	}

}
