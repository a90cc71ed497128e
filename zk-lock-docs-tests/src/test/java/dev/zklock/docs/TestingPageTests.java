package dev.zklock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three user tests that lead {@code docs/testing.md} are the test classes of
 * {@code com.example.shop} that this module runs, token for token (the page lays them out
 * for reading, the build formats them), and each stays under 30 lines from its
 * {@code @SpringBootTest}.
 */
class TestingPageTests {

	@ParameterizedTest
	@ValueSource(strings = { "OrderServiceLostLockTests", "BillingServiceStaleWriteTests", "NightlyReportOutageTests" })
	void thePageShowsTheTestTheBuildRuns(String testClass) throws IOException {
		Path source = Path.of(System.getProperty("docs.sourceRoot"),
				"zk-lock-docs-tests/src/test/java/com/example/shop", testClass + ".java");
		String file = Files.readString(source);
		Markdown page = Markdown.all()
			.stream()
			.filter((markdown) -> markdown.name().equals("docs/testing.md"))
			.findFirst()
			.orElseThrow();
		List<String> shown = page.blocks()
			.stream()
			.filter((block) -> block.language().equals("java"))
			.map(Markdown.Block::code)
			.filter((code) -> code.contains("class " + testClass + " "))
			.toList();
		assertThat(shown).as("docs/testing.md's block of %s", testClass).hasSize(1);
		assertThat(withoutWhitespace(shown.get(0))).as("docs/testing.md's %s, whitespace aside", testClass)
			.isEqualTo(withoutWhitespace(file));
		long lines = shown.get(0).substring(shown.get(0).indexOf("@SpringBootTest")).lines().count();
		assertThat(lines).as("lines of %s from @SpringBootTest", testClass).isLessThan(30);
	}

	private static String withoutWhitespace(String code) {
		return code.replaceAll("\\s+", "");
	}

}
