package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET} and {@code DELETE /actuator/zklocks/{key}} over real HTTP, against what
 * anyone with access to ZooKeeper, or to the URL, can put there: nodes under a key's path
 * that are not lock nodes, persistent nodes named as lock nodes, and keys that cannot be
 * lock keys. Nothing of theirs is read, listed or written, and a bad key is a {@code 400}
 * problem, without a stack trace in the log.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class ZkLocksEndpointHostileInputTests {

	private static final byte[] FOREIGN = "foreign-payload".getBytes(StandardCharsets.UTF_8);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void nodesThatAreNotLockNodesAreNeitherListedNorRead() throws Exception {
		CuratorFramework other = this.zk.newClient();
		other.create().creatingParentsIfNeeded().forPath("/locks/foreign/secret", FOREIGN);
		other.create().forPath("/locks/foreign/lock-0000000001", FOREIGN);
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		// Behind the holder: named as a lock node, it would otherwise be queued ahead
		other.create().forPath(HttpProbe.PATH + "/lock-0000000007", FOREIGN);
		other.create().forPath(HttpProbe.PATH + "/secret", FOREIGN);
		try (ConfigurableApplicationContext context = start()) {
			HttpResponse<String> foreign = send(context, "GET", "/actuator/zklocks/foreign");
			assertThat(foreign.statusCode()).isEqualTo(200);
			assertThat(foreign.body()).doesNotContain("foreign-payload", "secret", "lock-0000000001");
			assertThat((List<?>) HttpProbe.json(foreign).get("participants")).isEmpty();

			HttpResponse<String> mixed = send(context, "GET", "/actuator/zklocks/" + HttpProbe.KEY);
			assertThat(mixed.statusCode()).isEqualTo(200);
			assertThat(mixed.body()).doesNotContain("foreign-payload", "secret", "lock-0000000007");
			List<?> participants = (List<?>) HttpProbe.json(mixed).get("participants");
			assertThat(participants).singleElement()
				.satisfies((participant) -> assertThat(participant).asString().contains("holder=true", "node=_c_"));
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void revocationWritesNoNodeThatOnlyLooksLikeALockNodeAndNamesNone() throws Exception {
		CuratorFramework other = this.zk.newClient();
		other.create().creatingParentsIfNeeded().forPath("/locks/foreign/lock-0000000001", FOREIGN);
		other.create().forPath("/locks/foreign/secret", FOREIGN);
		try (ConfigurableApplicationContext context = start("zklock.endpoint.revocation-enabled=true")) {
			Map<String, String> before = snapshot(other, "/");
			HttpResponse<String> response = send(context, "DELETE", "/actuator/zklocks/foreign");
			assertThat(response.statusCode()).as(response.body()).isEqualTo(409);
			assertThat(HttpProbe.json(response)).containsEntry("key", "foreign").containsEntry("reason", "NOT_A_LOCK");
			assertThat(response.body()).doesNotContain("secret", "lock-0000000001", "foreign-payload");
			assertThat(snapshot(other, "/")).as("ZooKeeper's tree as it was").isEqualTo(before);
			assertThat(other.getData().forPath("/locks/foreign/lock-0000000001")).isEqualTo(FOREIGN);
		}
	}

	@Test
	void aKeyThatCannotBeALockKeyIsABadRequestProblemAndChangesNothing(CapturedOutput output) throws Exception {
		CuratorFramework other = this.zk.newClient();
		other.create().creatingParentsIfNeeded().forPath("/locks/foreign/lock-0000000001", FOREIGN);
		// Each raw path segment, and a word of the rule it breaks
		Map<String, String> badKeys = new TreeMap<>(Map.of("..", "relative path segments", "%2e%2e",
				"relative path segments", "%2E", "relative path segments", "a%0Ab", "control character U+000A",
				"x%0D%0Ay", "control character U+000D", "%F0%9F%94%92", "U+D83D", "%EE%80%80", "U+E000", "%20",
				"empty or blank", "%09", "empty or blank, but was '\\u0009'", "x".repeat(1025), "at most 1024"));
		try (ConfigurableApplicationContext context = start("zklock.endpoint.revocation-enabled=true")) {
			Map<String, String> before = snapshot(other, "/");
			int logged = output.getAll().length();
			int refused = 0;
			for (Map.Entry<String, String> bad : badKeys.entrySet()) {
				for (String method : List.of("GET", "DELETE")) {
					HttpResponse<String> response = send(context, method, "/actuator/zklocks/" + bad.getKey());
					assertThat(response.statusCode()).as(method + " " + bad.getKey() + ": " + response.body())
						.isEqualTo(400);
					assertThat(response.headers().firstValue(HttpHeaders.CONTENT_TYPE))
						.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
					Map<String, Object> body = HttpProbe.json(response);
					assertThat(body).containsEntry("status", 400).containsEntry("title", "Invalid lock key");
					assertThat((String) body.get("detail")).contains("Lock key", bad.getValue())
						.doesNotContain("\n", "\r", "\t");
					refused++;
				}
			}
			assertThat(refused).isEqualTo(2 * badKeys.size());
			String log = output.getAll().substring(logged);
			assertThat(log).doesNotContain("\tat ", "ERROR", "WARN", "Exception");
			assertThat(snapshot(other, "/")).as("ZooKeeper's tree as it was").isEqualTo(before);
		}
	}

	/**
	 * Every node under a path, the path's own included: its data and its stat.
	 */
	private static Map<String, String> snapshot(CuratorFramework client, String path) throws Exception {
		Map<String, String> nodes = new TreeMap<>();
		Stat stat = new Stat();
		byte[] data = client.getData().storingStatIn(stat).forPath(path);
		nodes.put(path, Arrays.toString(data) + " " + stat);
		for (String child : client.getChildren().forPath(path)) {
			nodes.putAll(snapshot(client, (path.equals("/") ? "" : path) + "/" + child));
		}
		return nodes;
	}

	private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path)
			throws Exception {
		return new HttpProbe(context).send(method, path);
	}

	private ConfigurableApplicationContext start(String... properties) {
		String[] all = new String[properties.length + 1];
		all[0] = "management.endpoints.web.exposure.include=zklocks";
		System.arraycopy(properties, 0, all, 1, properties.length);
		return new SpringApplicationBuilder(EndpointApplication.class).web(WebApplicationType.SERVLET)
			.properties(HttpProbe.applicationProperties(this.zk, all))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EndpointApplication {

	}

}
