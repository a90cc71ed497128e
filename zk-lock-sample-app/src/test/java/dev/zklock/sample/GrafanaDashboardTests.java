package dev.zklock.sample;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

import dev.zklock.sample.GrafanaDashboard.LabelMatcher;
import dev.zklock.sample.GrafanaDashboard.LabelValuesQuery;
import dev.zklock.sample.GrafanaDashboard.Query;
import dev.zklock.sample.GrafanaDashboard.Selector;
import dev.zklock.sample.PrometheusScrape.Sample;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard shipped in the autoconfigure jar against the sample's real
 * metrics: the sample runs on a real ZooKeeper, goes through every outcome the panels
 * show, and every series each panel's query (and each variable's) selects is in its
 * {@code /actuator/prometheus} scrape, with the labels the query matches and groups by; a
 * matcher on a fixed value (an outcome, a state) selects a series that is there.
 */
@Timeout(180)
class GrafanaDashboardTests {

	/**
	 * Labels Prometheus adds to every series it scrapes (the target's), which the
	 * application's scrape does not carry.
	 */
	static final Set<String> TARGET_LABELS = Set.of("instance", "job");

	@Test
	void theJarShipsTheDashboardOfTheDocs() throws Exception {
		try (InputStream in = GrafanaDashboard.class.getClassLoader().getResourceAsStream(GrafanaDashboard.RESOURCE)) {
			assertThat(in).as(GrafanaDashboard.RESOURCE).isNotNull();
			assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
				.isEqualTo(Files.readString(Path.of("../docs/grafana/zk-lock-dashboard.json")));
		}
	}

	@Test
	void theDashboardHasItsVariablesAndEveryQueryIsFilteredByThem() throws Exception {
		GrafanaDashboard dashboard = GrafanaDashboard.fromJar();
		JsonNode json = dashboard.json();
		assertThat(json.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(39);
		List<String> variables = new ArrayList<>();
		json.path("templating").path("list").forEach((variable) -> variables.add(variable.path("name").asString()));
		assertThat(variables).containsExactly("datasource", "application", "instance");
		assertThat(json.path("templating").path("list").get(0).path("query").asString()).isEqualTo("prometheus");
		assertThat(dashboard.variableQueries()).satisfiesExactly((application) -> {
			assertThat(application.label()).isEqualTo("application");
			assertThat(application.selector().selectors()).extracting(Selector::metric)
				.containsExactly("zklock_active");
		}, (instance) -> {
			assertThat(instance.label()).isEqualTo("instance");
			assertThat(instance.selector().selectors()).singleElement()
				.satisfies((selector) -> assertThat(selector.hasMatcher("application", "=~", "$application")).isTrue());
		});
		List<Query> queries = dashboard.panelQueries();
		assertThat(queries).hasSizeGreaterThan(20);
		List<String> problems = new ArrayList<>();
		for (Query query : queries) {
			if (!query.bareNames().isEmpty()) {
				problems.add(query.where() + ": series without a selector " + query.bareNames());
			}
			if (query.selectors().isEmpty()) {
				problems.add(query.where() + ": no series selected: " + query.expr());
			}
			for (Selector selector : query.selectors()) {
				if (!selector.hasMatcher("application", "=~", "$application")
						|| !selector.hasMatcher("instance", "=~", "$instance")) {
					problems.add(query.where() + ": " + selector.metric() + " not filtered by $application and "
							+ "$instance: " + query.expr());
				}
			}
		}
		assertThat(problems).isEmpty();
	}

	@Test
	void everyQueryOfEveryPanelSelectsSeriesTheSamplePublishes() throws Exception {
		GrafanaDashboard dashboard = GrafanaDashboard.fromJar();
		try (MonitoredShop shop = MonitoredShop.start()) {
			shop.exerciseEveryOutcome();
			PrometheusScrape scrape = shop.scrape();
			assertThat(scrape.samples("zklock_acquire_seconds_count"))
				.extracting((sample) -> sample.labels().get("outcome"))
				.contains("acquired", "timeout", "skipped", "skipped_unavailable", "error");
			assertThat(scrape.sum("zklock_held_seconds_count", "outcome", "lost")).isPositive();
			List<String> problems = new ArrayList<>();
			List<Query> queries = dashboard.panelQueries();
			for (Query query : queries) {
				problems.addAll(check(query, scrape));
			}
			for (LabelValuesQuery variable : dashboard.variableQueries()) {
				problems.addAll(check(variable.selector(), scrape));
				if (!TARGET_LABELS.contains(variable.label())) {
					for (Selector selector : variable.selector().selectors()) {
						if (scrape.samples(selector.metric())
							.stream()
							.noneMatch((sample) -> sample.labels().containsKey(variable.label()))) {
							problems.add(variable.selector().where() + ": no " + variable.label() + " label on "
									+ selector.metric());
						}
					}
				}
			}
			assertThat(problems).isEmpty();
			assertThat(queries).hasSizeGreaterThan(20);
		}
	}

	@Test
	void aSeriesOrLabelOrValueTheScrapeLacksIsCaught() {
		PrometheusScrape scrape = PrometheusScrape.parse("""
				# TYPE zklock_acquire_seconds histogram
				zklock_acquire_seconds_count{application="shop",lock_name="stock",outcome="acquired"} 3.0
				zklock_acquire_seconds_bucket{application="shop",le="+Inf",lock_name="stock",outcome="acquired"} 3.0
				zklock_active{application="shop"} 0.0
				""");
		String filter = "application=~\"$application\", instance=~\"$instance\"";
		assertThat(check(Query.parse("good", "histogram_quantile(0.95, sum by (le, lock_name) (rate("
				+ "zklock_acquire_seconds_bucket{" + filter + "}[$__rate_interval])))"), scrape))
			.isEmpty();
		assertThat(check(Query.parse("bare", "sum(zklock_active) + zklock_waiting"), scrape))
			.containsExactly("bare: no series zklock_waiting in the scrape");
		assertThat(check(Query.parse("typo", "rate(zklock_acquire_count{" + filter + "}[1m])"), scrape))
			.containsExactly("typo: no series zklock_acquire_count in the scrape");
		assertThat(check(Query.parse("label", "sum by (group) (zklock_active{" + filter + ", kind=\"read\"})"), scrape))
			.containsExactly("label: no label kind on zklock_active",
					"label: grouped by group, which zklock_active does not have");
		assertThat(check(
				Query.parse("value", "zklock_acquire_seconds_count{outcome=~\"timeout|fallback\", " + filter + "}"),
				scrape))
			.containsExactly("value: no series zklock_acquire_seconds_count with outcome=~\"timeout|fallback\"");
		assertThat(Query.parse("bare", "zklock_active").selectors()).singleElement()
			.isEqualTo(new Selector("zklock_active", List.of()));
	}

	/**
	 * What is wrong with a query against the scrape: a series it selects is not there; a
	 * label it matches or groups by is on none of its series; a matcher on a fixed value
	 * matches none of them.
	 */
	static List<String> check(Query query, PrometheusScrape scrape) {
		List<String> problems = new ArrayList<>();
		for (Selector selector : query.selectors()) {
			List<Sample> samples = scrape.samples(selector.metric());
			if (samples.isEmpty()) {
				problems.add(query.where() + ": no series " + selector.metric() + " in the scrape");
				continue;
			}
			for (LabelMatcher matcher : selector.matchers()) {
				if (TARGET_LABELS.contains(matcher.label())) {
					continue;
				}
				if (samples.stream().noneMatch((sample) -> sample.labels().containsKey(matcher.label()))) {
					problems.add(query.where() + ": no label " + matcher.label() + " on " + selector.metric());
				}
				else if (!matcher.usesVariable() && samples.stream()
					.noneMatch((sample) -> matcher.matches(sample.labels().get(matcher.label())))) {
					problems.add(query.where() + ": no series " + selector.metric() + " with " + matcher.label()
							+ matcher.operator() + "\"" + matcher.value() + "\"");
				}
			}
			for (String label : query.groupingLabels()) {
				if (!TARGET_LABELS.contains(label)
						&& samples.stream().noneMatch((sample) -> sample.labels().containsKey(label))) {
					problems.add(query.where() + ": grouped by " + label + ", which " + selector.metric()
							+ " does not have");
				}
			}
		}
		return problems;
	}

}
