package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/zkleaders} on a real server: the groups as JSON, one group by name, a
 * name that cannot be a group's answered {@code 400} with a problem naming the rule, and
 * {@code DELETE} only with {@code zklock.endpoint.revocation-enabled=true}, logged with
 * who asked.
 */
@Timeout(90)
@ExtendWith(OutputCaptureExtension.class)
class LeadersOverHttpTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void theGroupsAndOneGroupAsJsonAndAnInvalidNameIsAProblem() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			ZkLeadership leadership = context.getBean(ZkLeadership.class);
			eventually().until(() -> leadership.isLeader("billing"));
			HttpProbe probe = new HttpProbe(context);
			HttpResponse<String> all = probe.get("/actuator/zkleaders");
			assertThat(all.statusCode()).isEqualTo(200);
			Map<String, Object> body = HttpProbe.json(all);
			assertThat(body).containsEntry("rootPath", "/leaders").containsEntry("truncated", false);
			assertThat((List<?>) body.get("groups")).singleElement().satisfies((group) -> {
				Map<String, Object> billing = map(group);
				assertThat(billing.get("name")).isEqualTo("billing");
				assertThat(billing.get("path")).isEqualTo("/leaders/billing");
				assertThat(map(billing.get("leader"))).containsKeys("participantId", "host", "epoch", "since");
				assertThat((List<?>) billing.get("candidates")).isEmpty();
			});
			assertThat(map(body.get("instance"))).containsKey("participantId");

			HttpResponse<String> one = probe.get("/actuator/zkleaders/billing");
			assertThat(one.statusCode()).isEqualTo(200);
			assertThat(map(HttpProbe.json(one).get("instance"))).containsEntry("leading", true);

			HttpResponse<String> invalid = probe.get("/actuator/zkleaders/%20");
			assertThat(invalid.statusCode()).isEqualTo(400);
			assertThat(invalid.headers().firstValue(HttpHeaders.CONTENT_TYPE))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(HttpProbe.json(invalid)).containsEntry("title", "Invalid leader group")
				.hasEntrySatisfying("detail",
						(detail) -> assertThat(detail).asString().contains("Leader group name must not be empty"));
		}
	}

	@Test
	void handOverOnlyWhenEnabledAndLoggedWithWhoAsked(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			assertThat(delete(context, "/actuator/zkleaders/billing").statusCode()).isEqualTo(405);
		}
		try (ConfigurableApplicationContext context = start("zklock.endpoint.revocation-enabled=true")) {
			ZkLeadership leadership = context.getBean(ZkLeadership.class);
			eventually().until(() -> leadership.isLeader("billing"));
			long epoch = leadership.currentTerm("billing").epoch();
			HttpResponse<String> response = delete(context, "/actuator/zkleaders/billing");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(HttpProbe.json(response)).containsEntry("group", "billing")
				.containsEntry("path", "/leaders/billing");
			// Alone in the group, it hands over to itself: a new term
			eventually()
				.until(() -> leadership.isLeader("billing") && leadership.currentTerm("billing").epoch() != epoch);
			assertThat(output).contains("Leader of group 'billing' (/leaders/billing) asked to hand over, "
					+ "requested by an unauthenticated caller");
			assertThat(delete(context, "/actuator/zkleaders/nobody").statusCode()).isEqualTo(404);
		}
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object json) {
		return (Map<String, Object>) json;
	}

	private HttpResponse<String> delete(ConfigurableApplicationContext context, String path) throws Exception {
		return new HttpProbe(context).send("DELETE", path);
	}

	private ConfigurableApplicationContext start(String... properties) {
		String[] all = new String[properties.length + 2];
		all[0] = "management.endpoints.web.exposure.include=zkleaders";
		all[1] = "zklock.leadership.groups=billing";
		System.arraycopy(properties, 0, all, 2, properties.length);
		return new SpringApplicationBuilder(LeadersApplication.class).web(WebApplicationType.SERVLET)
			.properties(HttpProbe.applicationProperties(this.zk, all))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LeadersApplication {

	}

}
