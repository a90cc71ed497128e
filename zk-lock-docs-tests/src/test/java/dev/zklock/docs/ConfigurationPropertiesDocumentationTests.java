package dev.zklock.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property of the generated configuration metadata is on the configuration
 * properties page, and every {@code zklock.*} property the Markdown names exists.
 */
class ConfigurationPropertiesDocumentationTests {

	static final String PAGE = "docs/configuration-properties.md";

	/**
	 * A {@code zklock.*} name, not part of a longer name ({@code dev.zklock.core},
	 * {@code management.health.zklock.enabled} are not).
	 */
	private static final Pattern NAME = Pattern.compile("(?<![\\w.$/-])zklock(?:\\.[A-Za-z0-9_-]+)+");

	/**
	 * The misspellings the troubleshooting page shows in the report that rejects them.
	 */
	private static final Set<String> DELIBERATELY_UNKNOWN = Set.of("zklock.conect-string", "zklock.lock.default-wiat");

	private final ConfigurationMetadata metadata = ConfigurationMetadata.load();

	@Test
	void everyPropertyOfTheMetadataIsOnThePropertiesPage() {
		assertThat(this.metadata.sources()).as("zk-lock configuration metadata on the class path").isNotEmpty();
		Map<String, ?> properties = this.metadata.properties();
		assertThat(properties).containsKeys("zklock.connect-string", "zklock.lock.default-wait",
				"zklock.embedded.enabled", "zklock.web.problem-details.retry-after");
		String page = String.join("\n", Markdown.of(PAGE).prose().values());
		List<String> missing = new ArrayList<>();
		for (String property : properties.keySet()) {
			if (!page.contains("`" + property + "`")) {
				missing.add(property);
			}
		}
		assertThat(missing).as("properties of the configuration metadata that %s does not list", PAGE).isEmpty();
	}

	@Test
	void everyZkLockPropertyTheDocsNameExists() {
		Set<String> meters = MeterNamesDocumentationTests.documentedMeters();
		List<String> unknown = new ArrayList<>();
		for (Markdown page : Markdown.all()) {
			for (Markdown.Block block : page.blocks()) {
				check(page.name() + ":" + block.line(), block.code(), meters, unknown);
			}
			for (Map.Entry<Integer, String> line : page.prose().entrySet()) {
				check(page.name() + ":" + line.getKey(), line.getValue(), meters, unknown);
			}
		}
		assertThat(unknown).as("zklock.* names that are neither properties, nor groups of them, nor meters").isEmpty();
	}

	private void check(String where, String text, Set<String> meters, List<String> unknown) {
		Matcher matcher = NAME.matcher(text);
		while (matcher.find()) {
			String name = matcher.group();
			boolean systemProperty = matcher.start() >= 2
					&& text.substring(matcher.start() - 2, matcher.start()).equals("-D");
			if (systemProperty || DELIBERATELY_UNKNOWN.contains(name) || meters.contains(name)
					|| this.metadata.isProperty(name) || this.metadata.isGroup(name)) {
				continue;
			}
			unknown.add(where + ": " + name);
		}
	}

}
