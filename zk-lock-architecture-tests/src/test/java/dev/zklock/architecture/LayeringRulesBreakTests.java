package dev.zklock.architecture;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.zklock.architecture.fixture.cycle.left.Left;
import dev.zklock.architecture.fixture.cycle.right.Right;
import dev.zklock.architecture.fixture.importcycle.config.FixtureConfiguration;
import dev.zklock.architecture.fixture.importcycle.enable.EnableFixture;
import dev.zklock.architecture.fixture.javadoccycle.api.FixtureLock;
import dev.zklock.architecture.fixture.javadoccycle.registry.FixtureRegistry;
import dev.zklock.architecture.fixture.outside.UsesEngine;
import dev.zklock.architecture.fixture.spring.UsesSpring;
import dev.zklock.core.ApiFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each layering rule, applied to classes that break it on purpose (the
 * {@code dev.zklock.architecture.fixture} packages, {@link ApiFixture}), reports them: a
 * rule that cannot fail guards nothing. Also how each check treats what it does not see:
 * an annotation's class value is a dependency in bytecode; an import used only by Javadoc
 * is not, and only the source check finds it.
 */
@Timeout(60)
class LayeringRulesBreakTests {

	@Test
	void packageCycleInCodeFails() {
		assertViolation(LayeringRules.NO_PACKAGE_CYCLES, classes(Left.class, Right.class), "Cycle detected",
				"dev.zklock.architecture.fixture.cycle.left", "dev.zklock.architecture.fixture.cycle.right");
	}

	@Test
	void packageCycleThroughAnAnnotationsClassValueFails() {
		// @Import(FixtureConfiguration.class) is the enabling package's only use of the
		// other
		assertViolation(LayeringRules.NO_PACKAGE_CYCLES, classes(EnableFixture.class, FixtureConfiguration.class),
				"Cycle detected", "EnableFixture", "FixtureConfiguration");
	}

	@Test
	void packageCycleThroughAJavadocOnlyImportIsNotInBytecode() {
		EvaluationResult result = LayeringRules.NO_PACKAGE_CYCLES
			.evaluate(classes(FixtureLock.class, FixtureRegistry.class));
		assertThat(result.hasViolation()).as("a cycle in bytecode").isFalse();
	}

	@Test
	void packageCycleThroughAJavadocOnlyImportFailsInSources() {
		SourceImports imports = SourceImports.read(List.of(fixtureSources("javadoccycle")),
				"dev.zklock.architecture.fixture.");
		assertThat(imports.cycles()).singleElement()
			.asString()
			.contains("dev.zklock.architecture.fixture.javadoccycle.api -> "
					+ "dev.zklock.architecture.fixture.javadoccycle.registry")
			.contains("FixtureLock.java: import dev.zklock.architecture.fixture.javadoccycle.registry.FixtureRegistry;")
			.contains("dev.zklock.architecture.fixture.javadoccycle.registry -> "
					+ "dev.zklock.architecture.fixture.javadoccycle.api");
	}

	@Test
	void packageCycleThroughAnImportedAnnotationsClassValueFailsInSources() {
		SourceImports imports = SourceImports.read(List.of(fixtureSources("importcycle")),
				"dev.zklock.architecture.fixture.");
		assertThat(imports.cycles()).singleElement()
			.asString()
			.contains(
					"EnableFixture.java: import dev.zklock.architecture.fixture.importcycle.config.FixtureConfiguration;")
			.contains(
					"FixtureConfiguration.java: import dev.zklock.architecture.fixture.importcycle.enable.EnableFixture;");
	}

	@Test
	void sourcesWithoutCycleHaveNone() {
		SourceImports imports = SourceImports.read(List.of(fixtureSources("outside"), fixtureSources("spring")),
				"dev.zklock.");
		assertThat(imports.edges()).isEqualTo(1);
		assertThat(imports.cycles()).isEmpty();
	}

	@Test
	void engineUsedOutsideCoreFails() {
		assertViolation(LayeringRules.ENGINE_ONLY_INSIDE_CORE, classes(UsesEngine.class), "UsesEngine",
				"dev.zklock.core.internal.fixture.EngineFixture");
	}

	@Test
	void apiNamingAnEngineTypeFails() {
		assertViolation(LayeringRules.API_WITHOUT_ENGINE, classes(ApiFixture.class), "ApiFixture",
				"dev.zklock.core.internal.fixture.EngineFixture");
	}

	@Test
	void springInCoreFails() {
		assertViolation(LayeringRules.CORE_WITHOUT_SPRING, classes(UsesSpring.class), "UsesSpring",
				"org.springframework.util.Assert");
	}

	@Test
	void springBootInSpringModuleFails() {
		EvaluationResult result = LayeringRules.SPRING_WITHOUT_BOOT.evaluate(classes(UsesSpring.class));
		assertThat(result.getFailureReport().getDetails()).isNotEmpty()
			.allSatisfy((detail) -> assertThat(detail).contains("org.springframework.boot"));
	}

	@Test
	void packageSplitBetweenModulesFails() {
		Map<String, Set<String>> packagesByModule = Map.of("zk-lock-core", Set.of("dev.zklock.core"), "zk-lock-spring",
				Set.of("dev.zklock.aop", "dev.zklock.core.internal"), "zk-lock-sample-app", Set.of("dev.zklock.aop"));
		assertThat(LayeringRules.splitPackages(packagesByModule))
			.isEqualTo(Map.of("dev.zklock.aop", Set.of("zk-lock-sample-app", "zk-lock-spring")));
		assertThat(LayeringRules.corePackagesElsewhere(packagesByModule))
			.containsExactly("dev.zklock.core.internal (zk-lock-spring)");
	}

	private static void assertViolation(ArchRule rule, JavaClasses classes, String... expected) {
		EvaluationResult result = rule.evaluate(classes);
		assertThat(result.hasViolation()).as("%s reports a violation", rule.getDescription()).isTrue();
		assertThat(String.join("\n", result.getFailureReport().getDetails())).contains(expected);
	}

	private static JavaClasses classes(Class<?>... classes) {
		return new ClassFileImporter().importClasses(classes);
	}

	private static Path fixtureSources(String name) {
		return Modules.rootDirectory()
			.resolve("zk-lock-architecture-tests/src/test/java/dev/zklock/architecture/fixture")
			.resolve(name);
	}

}
