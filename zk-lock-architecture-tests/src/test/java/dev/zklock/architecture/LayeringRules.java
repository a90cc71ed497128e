package dev.zklock.architecture;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * zk-lock's layering, as ArchUnit rules on bytecode, plus the checks ArchUnit cannot
 * make: the package cycles of the sources' {@code import} lines ({@link SourceImports})
 * and packages split between modules.
 * <p>
 * The layers, from the bottom: the API ({@code dev.zklock.core}: the types users program
 * against, which the engine implements and the registry hands out), the engine
 * ({@code dev.zklock.core.internal..}), the registry that wires the engine and is its one
 * entry point ({@code dev.zklock.core.registry}); then the Spring modules, which use the
 * API and the registry, never the engine. {@link LayeringTests} applies each rule to the
 * modules it is about; {@link LayeringRulesBreakTests} shows each fail.
 */
final class LayeringRules {

	/** The API package: what users program against; it names no engine type. */
	static final String API = "dev.zklock.core";

	/** The engine: public only for its recipe packages, used only by zk-lock-core. */
	static final String ENGINE = "dev.zklock.core.internal..";

	/** The registry: the engine's one entry point, which wires it. */
	static final String REGISTRY = "dev.zklock.core.registry..";

	/** No cycle among the packages of all modules' main classes. */
	static final ArchRule NO_PACKAGE_CYCLES = slices().matching("dev.zklock.(**)")
		.namingSlices("dev.zklock.$1")
		.should()
		.beFreeOfCycles()
		.because("dependencies point down: a package that needs another must not be needed by it");

	/** For the main classes of every module but zk-lock-core. */
	static final ArchRule ENGINE_ONLY_INSIDE_CORE = noClasses().should()
		.dependOnClassesThat()
		.resideInAPackage(ENGINE)
		.as("no class outside zk-lock-core should depend on the engine, " + ENGINE)
		.because("the engine is not API: outside zk-lock-core, use dev.zklock.core and its registry");

	/** For every module's main classes. */
	static final ArchRule API_WITHOUT_ENGINE = noClasses().that()
		.resideInAPackage(API)
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage(ENGINE, REGISTRY)
		.because("the API is the bottom layer: the engine implements it and the registry hands it out");

	/** For zk-lock-core's main classes. */
	static final ArchRule CORE_WITHOUT_SPRING = noClasses().should()
		.dependOnClassesThat()
		.resideInAPackage("org.springframework..")
		.as("no class of zk-lock-core should depend on Spring, org.springframework..")
		.because("zk-lock-core is the engine for any application: Curator only, no Spring");

	/** For zk-lock-spring's main classes. */
	static final ArchRule SPRING_WITHOUT_BOOT = noClasses().should()
		.dependOnClassesThat()
		.resideInAPackage("org.springframework.boot..")
		.as("no class of zk-lock-spring should depend on Spring Boot, org.springframework.boot..")
		.because(
				"zk-lock-spring works in a Spring application without Spring Boot; Boot's part is the auto-configuration");

	private LayeringRules() {
	}

	/**
	 * The main classes of these modules, from their {@code target/classes}.
	 * @param modules the modules
	 * @return their classes
	 */
	static JavaClasses mainClasses(List<Modules.Module> modules) {
		List<Path> directories = modules.stream().map(Modules.Module::mainClasses).toList();
		return new ClassFileImporter().importPaths(directories);
	}

	/**
	 * Whether a class was imported from that module's main classes.
	 * @param module the module
	 * @return the predicate
	 */
	static DescribedPredicate<JavaClass> locatedIn(Modules.Module module) {
		Path classes = module.mainClasses().toAbsolutePath().normalize();
		return DescribedPredicate.describe("located in " + module,
				(javaClass) -> javaClass.getSource()
					.map((source) -> Paths.get(source.getUri()).startsWith(classes))
					.orElse(false));
	}

	/**
	 * The packages found in more than one module: a jar's Automatic-Module-Name is worth
	 * nothing if two jars share a package (the module path refuses a split package), and
	 * "outside zk-lock-core" means outside its packages only if no other module adds to
	 * them.
	 * @param packagesByModule each module's packages
	 * @return each split package with its modules; empty when there is none
	 */
	static Map<String, Set<String>> splitPackages(Map<String, Set<String>> packagesByModule) {
		Map<String, Set<String>> modulesByPackage = new TreeMap<>();
		packagesByModule.forEach((module, packages) -> packages
			.forEach((name) -> modulesByPackage.computeIfAbsent(name, (key) -> new TreeSet<>()).add(module)));
		modulesByPackage.values().removeIf((modules) -> modules.size() < 2);
		return modulesByPackage;
	}

	/**
	 * The packages of zk-lock-core found in another module.
	 * @param packagesByModule each module's packages
	 * @return "package (module)" for each; empty when there is none
	 */
	static List<String> corePackagesElsewhere(Map<String, Set<String>> packagesByModule) {
		List<String> found = new ArrayList<>();
		packagesByModule.forEach((module, packages) -> {
			if (!module.equals("zk-lock-core")) {
				packages.stream()
					.filter((name) -> name.equals(API) || name.startsWith(API + "."))
					.forEach((name) -> found.add(name + " (" + module + ")"));
			}
		});
		return found;
	}

}
