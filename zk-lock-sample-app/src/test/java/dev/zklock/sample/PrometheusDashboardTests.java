package dev.zklock.sample;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.zklock.sample.GrafanaDashboard.LabelValuesQuery;
import dev.zklock.sample.GrafanaDashboard.Query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard's queries run by a real Prometheus: one started here (Debian's
 * {@code prometheus} package, or any {@code prometheus} on the {@code PATH}) scrapes the
 * sample every second while it goes through every outcome, then each panel's query, with
 * Grafana's variables given their "All" values, returns data through Prometheus's HTTP
 * API, and each variable lists values. Skipped where no {@code prometheus} is installed.
 */
@Timeout(240)
class PrometheusDashboardTests {

	/** How long Prometheus may take to start, and its queries to return data. */
	private static final Duration PROMETHEUS_WAIT = Duration.ofSeconds(60);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@TempDir
	Path dir;

	@Test
	void everyQueryOfEveryPanelReturnsDataFromARealPrometheus() throws Exception {
		Path binary = prometheusBinary();
		Assumptions.assumeTrue(binary != null, "prometheus not installed: apt-get install prometheus");
		GrafanaDashboard dashboard = GrafanaDashboard.fromJar();
		try (MonitoredShop shop = MonitoredShop.start()) {
			int port = freePort();
			Process prometheus = startPrometheus(binary, shop.port(), port);
			try {
				String api = "http://127.0.0.1:" + port + "/api/v1/";
				await().atMost(PROMETHEUS_WAIT)
					.pollInterval(Duration.ofMillis(500))
					.ignoreExceptions()
					.untilAsserted(() -> {
						assertThat(prometheus.isAlive()).as("prometheus is running (%s)", log()).isTrue();
						assertThat(query(api, "up{job=\"zk-lock-sample\"} == 1")).isNotEmpty();
					});
				shop.exerciseEveryOutcome();
				List<Query> queries = dashboard.panelQueries();
				List<LabelValuesQuery> variables = dashboard.variableQueries();
				// rate() and increase() need two scrapes of a series within their range:
				// the
				// series of the last outcomes need a second or two more
				await().atMost(PROMETHEUS_WAIT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
					assertThat(prometheus.isAlive()).as("prometheus is running (%s)", log()).isTrue();
					List<String> empty = new ArrayList<>();
					for (Query query : queries) {
						if (query(api, GrafanaDashboard.substitute(query.expr())).isEmpty()) {
							empty.add(query.where() + ": " + query.expr());
						}
					}
					for (LabelValuesQuery variable : variables) {
						if (labelValues(api, variable).isEmpty()) {
							empty.add(variable.selector().where() + ": no " + variable.label() + " values");
						}
					}
					assertThat(empty).as("queries that returned no data").isEmpty();
				});
				assertThat(labelValues(api, variables.get(0))).contains("zk-lock-sample");
			}
			finally {
				stop(prometheus);
			}
		}
	}

	private static @Nullable Path prometheusBinary() {
		Path debian = Path.of("/usr/bin/prometheus");
		if (Files.isExecutable(debian)) {
			return debian;
		}
		String path = System.getenv("PATH");
		if (path != null) {
			for (String entry : path.split(File.pathSeparator)) {
				Path candidate = Path.of(entry, "prometheus");
				if (!entry.isEmpty() && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	private Process startPrometheus(Path binary, int appPort, int port) throws IOException {
		Path config = this.dir.resolve("prometheus.yml");
		Files.writeString(config, """
				global:
				  scrape_interval: 1s
				  scrape_timeout: 1s
				  evaluation_interval: 1s
				scrape_configs:
				  - job_name: zk-lock-sample
				    metrics_path: /actuator/prometheus
				    static_configs:
				      - targets: ['127.0.0.1:%d']
				""".formatted(appPort));
		return new ProcessBuilder(binary.toString(), "--config.file=" + config,
				"--storage.tsdb.path=" + this.dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
				"--log.level=warn")
			.redirectErrorStream(true)
			.redirectOutput(this.dir.resolve("prometheus.log").toFile())
			.start();
	}

	private String log() {
		try {
			return Files.readString(this.dir.resolve("prometheus.log"));
		}
		catch (IOException ex) {
			return "no log: " + ex;
		}
	}

	/**
	 * Stop the Prometheus this test started, and it alone.
	 */
	private static void stop(Process prometheus) throws InterruptedException {
		prometheus.destroy();
		if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
			prometheus.destroyForcibly();
			prometheus.waitFor(20, TimeUnit.SECONDS);
		}
	}

	/**
	 * An instant query's result: its series, none if it returned no data.
	 */
	private List<JsonNode> query(String api, String promql) throws Exception {
		JsonNode body = get(api + "query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
		assertThat(body.path("status").asString()).as("%s: %s", promql, body).isEqualTo("success");
		List<JsonNode> result = new ArrayList<>();
		body.path("data").path("result").forEach(result::add);
		return result;
	}

	/**
	 * The values of a variable's label, as Grafana asks Prometheus for them.
	 */
	private List<String> labelValues(String api, LabelValuesQuery variable) throws Exception {
		String selector = GrafanaDashboard.substitute(variable.selector().expr());
		JsonNode body = get(api + "label/" + variable.label() + "/values?match[]="
				+ URLEncoder.encode(selector, StandardCharsets.UTF_8));
		assertThat(body.path("status").asString()).as("%s: %s", selector, body).isEqualTo("success");
		List<String> values = new ArrayList<>();
		body.path("data").forEach((value) -> values.add(value.asString()));
		return values;
	}

	private JsonNode get(String uri) throws Exception {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET %s: %s", uri, response.body()).isEqualTo(200);
		return JsonMapper.shared().readTree(response.body());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
