package dev.zklock.docs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.zklock.template.LockDefinition;
import dev.zklock.template.ZkLockTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tag spellings of the monitoring page work where it says they do: each
 * {@code GET /actuator/metrics/...?tag=...} example of a code block answers 200 on a
 * running application that took the lock the example names (a tag Micrometer does not
 * know, such as {@code lock_name}, is a 404), and each Prometheus query example's labels
 * are labels of the application's scrape.
 */
class MetricTagsDocumentationTests {

	/** An actuator example: the meter, then its {@code tag=name:value} pairs. */
	private static final Pattern METRICS_URL = Pattern.compile("GET (/actuator/metrics/(zklock\\.[a-z.]+)\\?(\\S+))");

	/** A Prometheus query example: the series, then its {@code label="value"} pairs. */
	private static final Pattern PROMETHEUS_QUERY = Pattern.compile("query=(zklock_[a-z_]+)\\{([^}]*)}");

	private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	@Timeout(120)
	void theDocumentedTagsSelectTheMetersOfARunningApplication() throws Exception {
		List<MatchResult> urls = find(METRICS_URL);
		List<MatchResult> queries = find(PROMETHEUS_QUERY);
		assertThat(urls).as("GET /actuator/metrics/...?tag=... examples in %s", MeterNamesDocumentationTests.PAGE)
			.isNotEmpty();
		assertThat(queries).as("Prometheus query examples in %s", MeterNamesDocumentationTests.PAGE).isNotEmpty();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TaggedApplication.class)
			.web(WebApplicationType.SERVLET)
			.run("--zklock.embedded.enabled=true", "--zklock.embedded.port=0", "--spring.main.banner-mode=off",
					"--server.port=0", "--server.address=127.0.0.1",
					"--management.endpoints.web.exposure.include=metrics,prometheus")) {
			ZkLockTemplate template = context.getBean(ZkLockTemplate.class);
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			for (MatchResult url : urls) {
				Map<String, String> tags = new LinkedHashMap<>();
				for (String pair : url.group(3).split("&")) {
					String tag = pair.substring("tag=".length());
					tags.put(tag.substring(0, tag.indexOf(':')), tag.substring(tag.indexOf(':') + 1));
				}
				// The example's lock, under whichever spelling of the tag the page uses
				lock(template, tags.getOrDefault("lock.name", tags.getOrDefault("lock_name", "docs")));
				HttpResponse<String> response = get(port, url.group(1));
				assertThat(response.statusCode()).as("GET %s: %s", url.group(1), response.body()).isEqualTo(200);
				assertThat(response.body()).contains("\"name\":\"" + url.group(2) + "\"");
			}
			for (MatchResult query : queries) {
				Map<String, String> labels = new LinkedHashMap<>();
				Matcher label = LABEL.matcher(query.group(2));
				while (label.find()) {
					labels.put(label.group(1), label.group(2));
				}
				lock(template, labels.getOrDefault("lock_name", "docs"));
				String scrape = get(port, "/actuator/prometheus").body();
				assertThat(scrape.lines().filter((line) -> line.startsWith(query.group(1) + "{")))
					.as("%s series of the scrape with the labels %s", query.group(1), labels)
					.anySatisfy((series) -> labels
						.forEach((name, value) -> assertThat(series).contains(name + "=\"" + value + "\"")));
			}
		}
	}

	private static void lock(ZkLockTemplate template, String name) {
		template.execute(LockDefinition.named(name).withWaitAtMost(Duration.ofSeconds(10)), List.of("docs-tags"),
				() -> "held");
	}

	private static List<MatchResult> find(Pattern pattern) {
		List<MatchResult> found = new ArrayList<>();
		for (Markdown.Block block : Markdown.of(MeterNamesDocumentationTests.PAGE).blocks()) {
			found.addAll(pattern.matcher(block.code()).results().toList());
		}
		return found;
	}

	private HttpResponse<String> get(int port, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TaggedApplication {

	}

}
