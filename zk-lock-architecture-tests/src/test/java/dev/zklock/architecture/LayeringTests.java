package dev.zklock.architecture;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layering rules ({@link LayeringRules}) on every module's main code: the classes
 * each module's build compiled in this reactor, and its sources.
 */
@Timeout(120)
class LayeringTests {

	private static Map<Modules.Module, JavaClasses> classesByModule;

	private static JavaClasses allClasses;

	@BeforeAll
	static void importMainClasses() {
		List<Modules.Module> modules = Modules.withMainCode();
		assertThat(modules).extracting(Modules.Module::artifactId)
			.contains("zk-lock-core", "zk-lock-spring", "zk-lock-spring-boot-autoconfigure",
					"zk-lock-embedded-zookeeper", "zk-lock-sample-app", "zk-lock-benchmarks");
		allClasses = LayeringRules.mainClasses(modules);
		classesByModule = new LinkedHashMap<>();
		for (Modules.Module module : modules) {
			JavaClasses classes = allClasses.that(LayeringRules.locatedIn(module));
			assertThat(classes).as(module + "'s main classes").isNotEmpty();
			classesByModule.put(module, classes);
		}
	}

	@Test
	void noPackageCycleInBytecode() {
		LayeringRules.NO_PACKAGE_CYCLES.check(allClasses);
	}

	@Test
	void noPackageCycleInImports() {
		List<Path> sources = Modules.withMainCode().stream().map(Modules.Module::mainSources).toList();
		SourceImports imports = SourceImports.read(sources, "dev.zklock.");
		assertThat(imports.edges()).as("imports between dev.zklock packages").isGreaterThan(20);
		assertThat(imports.cycles()).isEmpty();
	}

	@Test
	void engineUsedOnlyInsideCore() {
		classesByModule.forEach((module, classes) -> {
			if (!module.artifactId().equals("zk-lock-core")) {
				LayeringRules.ENGINE_ONLY_INSIDE_CORE.check(classes);
			}
		});
	}

	@Test
	void apiWithoutEngine() {
		LayeringRules.API_WITHOUT_ENGINE.check(allClasses);
	}

	@Test
	void coreWithoutSpring() {
		LayeringRules.CORE_WITHOUT_SPRING.check(classesOf("zk-lock-core"));
	}

	@Test
	void springWithoutSpringBoot() {
		LayeringRules.SPRING_WITHOUT_BOOT.check(classesOf("zk-lock-spring"));
	}

	@Test
	void noPackageSplitBetweenModules() {
		Map<String, Set<String>> packagesByModule = new LinkedHashMap<>();
		classesByModule.forEach((module, classes) -> packagesByModule.put(module.artifactId(), packages(classes)));
		assertThat(LayeringRules.splitPackages(packagesByModule)).isEmpty();
		assertThat(LayeringRules.corePackagesElsewhere(packagesByModule)).isEmpty();
	}

	private static JavaClasses classesOf(String artifactId) {
		return classesByModule.get(Modules.named(artifactId));
	}

	private static Set<String> packages(JavaClasses classes) {
		Set<String> packages = new TreeSet<>();
		for (JavaClass javaClass : classes) {
			packages.add(javaClass.getPackageName());
		}
		return packages;
	}

}
