package dev.zklock.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The modules of the build, as the root {@code pom.xml} lists them, and where each keeps
 * its main sources and classes. Read from the repository, so that a module added to the
 * build is checked without being named here.
 */
final class Modules {

	private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

	private static final Pattern ARTIFACT_ID = Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>");

	private static final Pattern PACKAGING = Pattern.compile("<packaging>([^<]+)</packaging>");

	private static final Pattern DEPLOY_SKIPPED = Pattern
		.compile("<maven\\.deploy\\.skip>true</maven\\.deploy\\.skip>");

	private Modules() {
	}

	/**
	 * The repository's root directory, set by the module's surefire configuration.
	 * @return the root directory
	 */
	static Path rootDirectory() {
		String root = System.getProperty("architecture.rootDirectory");
		if (root == null || root.isBlank()) {
			throw new IllegalStateException("architecture.rootDirectory is not set (see this module's pom.xml)");
		}
		return Paths.get(root).toAbsolutePath().normalize();
	}

	/**
	 * Every module of the build, in the root pom's order.
	 * @return the modules
	 */
	static List<Module> all() {
		Path root = rootDirectory();
		List<Module> modules = new ArrayList<>();
		Matcher matcher = MODULE.matcher(read(root.resolve("pom.xml")));
		while (matcher.find()) {
			Path directory = root.resolve(matcher.group(1).trim());
			String pom = read(directory.resolve("pom.xml"));
			Matcher artifactId = ARTIFACT_ID.matcher(pom);
			Matcher packaging = PACKAGING.matcher(pom);
			modules.add(new Module(artifactId.find() ? artifactId.group(1) : directory.getFileName().toString(),
					directory, packaging.find() ? packaging.group(1) : "jar", !DEPLOY_SKIPPED.matcher(pom).find()));
		}
		return modules;
	}

	/**
	 * The modules that have main Java sources.
	 * @return the modules with main code
	 */
	static List<Module> withMainCode() {
		return all().stream().filter((module) -> Files.isDirectory(module.mainSources())).toList();
	}

	/**
	 * The module of that artifactId.
	 * @param artifactId the module's artifactId
	 * @return the module
	 */
	static Module named(String artifactId) {
		return all().stream()
			.filter((module) -> module.artifactId().equals(artifactId))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No module " + artifactId));
	}

	static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * One module of the build.
	 *
	 * @param artifactId its artifactId
	 * @param directory its directory
	 * @param packaging its packaging ({@code jar} unless its pom says otherwise)
	 * @param published whether a release publishes it (its pom does not skip the deploy)
	 */
	record Module(String artifactId, Path directory, String packaging, boolean published) {

		Path mainSources() {
			return this.directory.resolve("src/main/java");
		}

		/**
		 * Its compiled main classes; a module with main code that the build has not
		 * compiled is an error, not an empty module.
		 * @return the classes directory
		 */
		Path mainClasses() {
			Path classes = this.directory.resolve("target/classes");
			if (Files.isDirectory(mainSources()) && !Files.isDirectory(classes)) {
				throw new IllegalStateException(
						this.artifactId + " has main sources but no " + classes + ": build it in this reactor first");
			}
			return classes;
		}

		@Override
		public String toString() {
			return this.artifactId;
		}

	}

}
