package dev.zklock.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The user pages say how to do a task; the evidence (which test proves it, what a run
 * measured) lives in {@code docs/semantics.md}, {@code docs/design.md} and the
 * benchmarks' README. So no user page names a test class ({@code FooTests}) outside its
 * code blocks: a reader's own test class in a snippet is fine, and so is
 * {@code -DskipTests}, a flag.
 */
class UserPagesTests {

	/** The pages a user reads to get a task done. */
	static final List<String> USER_PAGES = List.of("README.md", "docs/getting-started.md", "docs/annotation.md",
			"docs/lock-modes.md", "docs/leadership.md", "docs/programmatic-use.md", "docs/testing.md",
			"docs/migrating.md", "docs/troubleshooting.md", "docs/configuration-properties.md");

	/** A class name ending in {@code Tests}, not part of a word or a {@code -D} flag. */
	private static final Pattern TEST_CLASS = Pattern.compile("(?<![\\w-])[A-Z]\\w+Tests\\b");

	@Test
	void noUserPageNamesATestClass() {
		List<String> problems = new ArrayList<>();
		for (String name : USER_PAGES) {
			problems.addAll(testClassesNamed(Markdown.of(name)));
		}
		assertThat(problems)
			.as("test classes named on user pages (move the evidence to docs/semantics.md, "
					+ "docs/design.md or zk-lock-benchmarks/README.md, and link to it)")
			.isEmpty();
	}

	@Test
	void aTestClassInProseIsCaughtAndTheRestIsNot() {
		Map<Integer, String> prose = Map.of(1, "`ScheduledJobAcrossJvmsTests` runs two instances.", 2,
				"Run `./mvnw -B -DskipTests package`.", 3, "See the semantics page (FencingTests, H2JdbcFencingTests).",
				4, "Tests run on 2 cores; MyTestsHelper is not a test class.");
		assertThat(testClassesNamed("p.md", prose)).containsExactly("p.md:1: ScheduledJobAcrossJvmsTests",
				"p.md:3: FencingTests", "p.md:3: H2JdbcFencingTests");
	}

	private static List<String> testClassesNamed(Markdown page) {
		return testClassesNamed(page.name(), page.prose());
	}

	private static List<String> testClassesNamed(String name, Map<Integer, String> prose) {
		List<String> named = new ArrayList<>();
		prose.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach((line) -> {
			Matcher matcher = TEST_CLASS.matcher(line.getValue());
			while (matcher.find()) {
				named.add(name + ":" + line.getKey() + ": " + matcher.group());
			}
		});
		return named;
	}

}
