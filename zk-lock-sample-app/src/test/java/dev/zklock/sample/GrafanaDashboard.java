package dev.zklock.sample;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Grafana dashboard as the autoconfigure jar ships it, and the PromQL of its panels
 * and variables taken apart: which series each query selects, with which label matchers,
 * and which labels it groups by.
 */
final class GrafanaDashboard {

	/** Where the jar holds the dashboard. */
	static final String RESOURCE = "META-INF/zk-lock/grafana/zk-lock-dashboard.json";

	/** A series selector: a metric name and its label matchers. */
	private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)}");

	private static final Pattern MATCHER = Pattern
		.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	private static final Pattern GROUPING = Pattern
		.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");

	private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*]");

	private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*");

	/** {@code label_values(selector, label)}, a variable's query. */
	private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.*),\\s*([a-zA-Z_]\\w*)\\)$");

	/** The functions, aggregations and keywords a query may name besides series. */
	private static final Set<String> PROMQL_WORDS = Set.of("sum", "max", "min", "avg", "count", "rate", "irate",
			"increase", "delta", "histogram_quantile", "topk", "bottomk", "clamp_min", "clamp_max", "abs", "changes",
			"resets", "vector", "scalar", "time", "and", "or", "unless", "bool", "offset", "group", "last_over_time",
			"max_over_time", "min_over_time", "avg_over_time");

	private final JsonNode json;

	private GrafanaDashboard(JsonNode json) {
		this.json = json;
	}

	/**
	 * The dashboard of the jar on the class path.
	 * @return the dashboard
	 * @throws IOException if it cannot be read
	 */
	static GrafanaDashboard fromJar() throws IOException {
		try (InputStream in = GrafanaDashboard.class.getClassLoader().getResourceAsStream(RESOURCE)) {
			if (in == null) {
				throw new IllegalStateException(RESOURCE + " is not on the class path");
			}
			return new GrafanaDashboard(
					JsonMapper.shared().readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
		}
	}

	JsonNode json() {
		return this.json;
	}

	/**
	 * Every query of every panel (rows' panels included), in order.
	 * @return the queries
	 */
	List<Query> panelQueries() {
		List<Query> queries = new ArrayList<>();
		collect(this.json.path("panels"), queries);
		return queries;
	}

	private static void collect(JsonNode panels, List<Query> queries) {
		for (JsonNode panel : panels) {
			for (JsonNode target : panel.path("targets")) {
				String where = "panel '" + panel.path("title").asString() + "' target "
						+ target.path("refId").asString();
				queries.add(Query.parse(where, target.path("expr").asString()));
			}
			collect(panel.path("panels"), queries);
		}
	}

	/**
	 * The {@code label_values(selector, label)} queries of the template variables.
	 * @return the variables' queries
	 */
	List<LabelValuesQuery> variableQueries() {
		List<LabelValuesQuery> queries = new ArrayList<>();
		for (JsonNode variable : this.json.path("templating").path("list")) {
			if (!"query".equals(variable.path("type").asString())) {
				continue;
			}
			JsonNode query = variable.path("query");
			String text = query.isObject() ? query.path("query").asString() : query.asString();
			Matcher matcher = LABEL_VALUES.matcher(text.trim());
			if (!matcher.matches()) {
				throw new IllegalStateException("Variable " + variable.path("name").asString()
						+ ": not a label_values(selector, label) query: " + text);
			}
			String where = "variable '" + variable.path("name").asString() + "'";
			queries.add(new LabelValuesQuery(variable.path("name").asString(), matcher.group(2),
					Query.parse(where, matcher.group(1))));
		}
		return queries;
	}

	/**
	 * A query with Grafana's variables given values, as Grafana sends it to Prometheus
	 * with every application and instance selected.
	 * @param expr the query
	 * @return the query Prometheus can run
	 */
	static String substitute(String expr) {
		return expr.replace("$__rate_interval", "1m")
			.replace("$__range", "5m")
			.replace("$__interval", "15s")
			.replace("$application", ".*")
			.replace("$instance", ".*");
	}

	/**
	 * A label matcher of a selector.
	 *
	 * @param label the label
	 * @param operator {@code =}, {@code !=}, {@code =~} or {@code !~}
	 * @param value the value, unescaped
	 */
	record LabelMatcher(String label, String operator, String value) {

		boolean usesVariable() {
			return this.value.contains("$");
		}

		boolean matches(@Nullable String actual) {
			String value = (actual != null) ? actual : "";
			return switch (this.operator) {
				case "=" -> value.equals(this.value);
				case "!=" -> !value.equals(this.value);
				case "=~" -> value.matches(this.value);
				default -> !value.matches(this.value);
			};
		}

	}

	/**
	 * A series selector.
	 *
	 * @param metric the metric name
	 * @param matchers its label matchers
	 */
	record Selector(String metric, List<LabelMatcher> matchers) {

		boolean hasMatcher(String label, String operator, String value) {
			return this.matchers.contains(new LabelMatcher(label, operator, value));
		}

	}

	/**
	 * A query taken apart.
	 *
	 * @param where the panel and target it comes from
	 * @param expr the PromQL
	 * @param selectors the series it selects
	 * @param groupingLabels the labels of its {@code by}, {@code without}, {@code on}
	 * clauses
	 * @param bareNames names that are neither a selector nor a PromQL word: series named
	 * without braces, also among the selectors (without matchers)
	 */
	record Query(String where, String expr, List<Selector> selectors, Set<String> groupingLabels,
			Set<String> bareNames) {

		static Query parse(String where, String expr) {
			String rest = RANGE.matcher(expr).replaceAll(" ");
			List<Selector> selectors = new ArrayList<>();
			Matcher selector = SELECTOR.matcher(rest);
			while (selector.find()) {
				List<LabelMatcher> matchers = new ArrayList<>();
				Matcher matcher = MATCHER.matcher(selector.group(2));
				while (matcher.find()) {
					matchers.add(new LabelMatcher(matcher.group(1), matcher.group(2),
							matcher.group(3).replace("\\\\", "\\").replace("\\\"", "\"")));
				}
				selectors.add(new Selector(selector.group(1), List.copyOf(matchers)));
			}
			rest = SELECTOR.matcher(rest).replaceAll(" ");
			Set<String> grouping = new LinkedHashSet<>();
			Matcher clause = GROUPING.matcher(rest);
			while (clause.find()) {
				for (String label : clause.group(1).split(",")) {
					if (!label.isBlank()) {
						grouping.add(label.trim());
					}
				}
			}
			rest = GROUPING.matcher(rest).replaceAll(" ");
			Set<String> bare = new LinkedHashSet<>();
			Matcher identifier = IDENTIFIER.matcher(rest);
			while (identifier.find()) {
				if (!PROMQL_WORDS.contains(identifier.group())) {
					bare.add(identifier.group());
					selectors.add(new Selector(identifier.group(), List.of()));
				}
			}
			return new Query(where, expr, List.copyOf(selectors), grouping, bare);
		}

	}

	/**
	 * A template variable's {@code label_values} query.
	 *
	 * @param variable the variable's name
	 * @param label the label whose values it lists
	 * @param selector the series it reads them from
	 */
	record LabelValuesQuery(String variable, String label, Query selector) {
	}

}
