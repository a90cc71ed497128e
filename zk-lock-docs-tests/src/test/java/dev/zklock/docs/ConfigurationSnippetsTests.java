package dev.zklock.docs;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code application.yml} and properties snippet of the Markdown, and every
 * {@code --zklock.*=} argument of a shell snippet, binds: its {@code zklock.*} keys are
 * properties the configuration metadata declares, and their values bind to zk-lock's
 * properties class.
 */
class ConfigurationSnippetsTests {

	private static final Pattern ARGUMENT = Pattern.compile("--(zklock\\.[\\w.-]+)=(\\S+)");

	private final ConfigurationMetadata metadata = ConfigurationMetadata.load();

	@Test
	void everyConfigurationSnippetBindsWithNoUnknownZkLockKey() throws Exception {
		List<String> problems = new ArrayList<>();
		int snippets = 0;
		for (Markdown page : Markdown.all()) {
			for (Markdown.Block block : page.blocks()) {
				Map<String, Object> keys = switch (block.language()) {
					case "yaml", "yml" -> yaml(block);
					case "properties" -> properties(block);
					case "bash", "sh", "shell" -> arguments(block);
					default -> null;
				};
				if (keys == null) {
					continue;
				}
				snippets++;
				check(block, keys, problems);
			}
		}
		assertThat(snippets).as("configuration snippets").isGreaterThan(5);
		assertThat(problems).as("configuration snippets that do not bind").isEmpty();
	}

	@Test
	void aMisspelledKeyOrABadValueIsCaught() throws Exception {
		Markdown page = Markdown.of("README.md");
		List<String> problems = new ArrayList<>();
		check(new Markdown.Block(page, "yaml", 1, "x", null),
				Map.of("zklock.conect-string", "localhost:2181", "zklock.lock.default-wait", "two seconds"), problems);
		assertThat(problems).hasSize(2);
		assertThat(problems.get(0) + problems.get(1)).contains("zklock.conect-string", "two seconds");
	}

	private void check(Markdown.Block block, Map<String, Object> keys, List<String> problems) throws Exception {
		Map<String, Object> zklock = new LinkedHashMap<>();
		keys.forEach((key, value) -> {
			if (key.startsWith("zklock.") || key.startsWith("ZKLOCK_")) {
				zklock.put(key, value);
				if (!this.metadata.isProperty(key)) {
					problems.add(block.where() + ": " + key + " is not a zk-lock property");
				}
			}
		});
		if (zklock.isEmpty()) {
			return;
		}
		try {
			new Binder(new MapConfigurationPropertySource(zklock)).bind("zklock", propertiesClass());
		}
		catch (RuntimeException ex) {
			Throwable cause = ex;
			while (cause.getCause() != null) {
				cause = cause.getCause();
			}
			problems.add(block.where() + ": " + zklock + " does not bind: " + ex.getMessage() + " ("
					+ cause.getMessage() + ")");
		}
	}

	/** zk-lock's properties class, found through the metadata rather than named. */
	private Class<?> propertiesClass() throws ClassNotFoundException {
		String type = this.metadata.groups().get("zklock").getSources().values().iterator().next().getType();
		return ClassUtils.forName(type, getClass().getClassLoader());
	}

	private static Map<String, Object> yaml(Markdown.Block block) throws IOException {
		Map<String, Object> keys = new LinkedHashMap<>();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load(block.where(),
				new ByteArrayResource(block.code().getBytes()))) {
			EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
			for (String name : enumerable.getPropertyNames()) {
				keys.put(name, String.valueOf(enumerable.getProperty(name)));
			}
		}
		return keys;
	}

	private static Map<String, Object> properties(Markdown.Block block) throws IOException {
		Properties properties = new Properties();
		properties.load(new StringReader(block.code()));
		Map<String, Object> keys = new LinkedHashMap<>();
		properties.stringPropertyNames().forEach((name) -> keys.put(name, properties.getProperty(name)));
		return keys;
	}

	private static Map<String, Object> arguments(Markdown.Block block) {
		Map<String, Object> keys = new LinkedHashMap<>();
		Matcher matcher = ARGUMENT.matcher(block.code());
		while (matcher.find()) {
			keys.put(matcher.group(1), matcher.group(2).replaceAll("[\"']", ""));
		}
		return keys;
	}

}
