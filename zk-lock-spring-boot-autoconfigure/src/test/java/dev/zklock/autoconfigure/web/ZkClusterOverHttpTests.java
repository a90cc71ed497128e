package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code zkcluster} endpoint over real HTTP, in an application that sets nothing but
 * {@code zklock.view.enabled=true}: the JSON view and the page are exposed by that one
 * property, a request the view refuses is a {@code 400} problem naming the value, and the
 * {@code DELETE} exists only with revocation enabled.
 */
@Timeout(120)
class ZkClusterOverHttpTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void onePropertyExposesTheViewAndThePage() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start("zklock.view.enabled=true")) {
			HttpResponse<String> view = send(context, "GET", "/actuator/zkcluster");
			assertThat(view.statusCode()).as(view.body()).isEqualTo(200);
			Map<String, Object> body = HttpProbe.json(view);
			assertThat(body).containsEntry("rootPath", "/locks").containsEntry("revocationEnabled", false);
			assertThat((List<?>) body.get("keys")).singleElement()
				.asString()
				.contains("key=" + HttpProbe.KEY, "owner=", "fencingToken=");

			HttpResponse<String> page = send(context, "GET", "/actuator/zkcluster/page");
			assertThat(page.statusCode()).isEqualTo(200);
			assertThat(page.headers().firstValue(HttpHeaders.CONTENT_TYPE))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("text/html"));
			assertThat(page.body()).contains("zk-lock: cluster view");

			assertThat(send(context, "GET", "/actuator/zkcluster/other").statusCode()).isEqualTo(404);
			assertThat(send(context, "DELETE", "/actuator/zkcluster/" + HttpProbe.KEY).statusCode())
				.as("no revocation unless enabled")
				.isEqualTo(405);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void aRefusedRequestIsABadRequestProblemNamingTheValue() throws Exception {
		try (ConfigurableApplicationContext context = start("zklock.view.enabled=true")) {
			Map<String, String> bad = Map.of("prefix=a%2Fb", "Key prefix 'a/b' cannot start a lock key", "limit=0",
					"between 1 and 1000, but was 0", "prefix=" + "x".repeat(2000), "at most 1024 characters",
					"after=..", "relative path segments");
			for (Map.Entry<String, String> one : bad.entrySet()) {
				HttpResponse<String> response = send(context, "GET", "/actuator/zkcluster?" + one.getKey());
				assertThat(response.statusCode()).as(one.getKey() + ": " + response.body()).isEqualTo(400);
				assertThat(HttpProbe.json(response)).containsEntry("title", "Invalid cluster view request")
					.hasEntrySatisfying("detail", (detail) -> assertThat(detail).asString().contains(one.getValue()));
			}
		}
	}

	@Test
	void theOffSwitchExposesNothing() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			assertThat(send(context, "GET", "/actuator/zkcluster").statusCode()).isEqualTo(404);
			assertThat(send(context, "GET", "/actuator/zkcluster/page").statusCode()).isEqualTo(404);
		}
	}

	private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path)
			throws Exception {
		return new HttpProbe(context).send(method, path);
	}

	private ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(ClusterApplication.class).web(WebApplicationType.SERVLET)
			.properties(HttpProbe.applicationProperties(this.zk, properties))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ClusterApplication {

	}

}
