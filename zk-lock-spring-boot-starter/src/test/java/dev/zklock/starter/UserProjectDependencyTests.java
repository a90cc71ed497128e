package dev.zklock.starter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The ZooKeeper a user gets is the one we test: a throwaway application that depends only
 * on the starter, and does not inherit our parent's {@code dependencyManagement},
 * resolves {@code org.apache.zookeeper:zookeeper} at {@code ${zookeeper.version}}, and
 * not the embedded server. One that adds {@code zk-lock-embedded-zookeeper} with test
 * scope gets the server's libraries that ZooKeeper declares 'provided', at the versions
 * we test, without naming them. One that imports {@code zk-lock-bom} names every zk-lock
 * artifact without a version.
 * <p>
 * The child Maven (the one running this build) uses a fresh local repository in a
 * temporary directory, seeded with the POMs of this source tree, which are what
 * {@code install} and {@code deploy} publish (no flattening). A stale
 * {@code 0.1.0-SNAPSHOT} in {@code ~/.m2} therefore cannot stand in for them: every other
 * artifact comes from {@code ~/.m2} through a {@code file://} mirror, which, mirroring
 * Central, serves releases only. No network is used, and {@code ~/.m2} is only read.
 * Dependency collection reads POMs only, so our jars are empty placeholders and this runs
 * in the {@code test} phase, before anything is packaged.
 */
// Bounds for a hang, not for speed: a child Maven run takes seconds on a quiet machine,
// minutes on a loaded one
@Timeout(300)
class UserProjectDependencyTests {

	/**
	 * The starter and every dev.zklock artifact it brings, with the parent their POMs
	 * name.
	 */
	private static final List<String> MODULES = List.of("zk-lock-core", "zk-lock-spring",
			"zk-lock-spring-boot-autoconfigure", "zk-lock-spring-boot-starter");

	/** The embedded server's module, which users add beside the starter. */
	private static final String EMBEDDED_MODULE = "zk-lock-embedded-zookeeper";

	/** The BOM, which users import. */
	private static final String BOM = "zk-lock-bom";

	private static final Pattern ZKLOCK_NODE = Pattern.compile("dev\\.zklock:([\\w.-]+):");

	@TempDir
	Path dir;

	@Test
	void aUserOfTheStarterResolvesTheZooKeeperWeTest() throws Exception {
		String zookeeperVersion = property("zklock.zookeeperVersion");
		String resolved = resolve(MODULES, dependency("zk-lock-spring-boot-starter", null));
		String zookeeper = "org.apache.zookeeper:zookeeper:jar:" + zookeeperVersion + ":compile";
		String jute = "org.apache.zookeeper:zookeeper-jute:jar:" + zookeeperVersion + ":compile";
		assertThat(resolved).as("dependency tree of a user project:%n%s", resolved)
			.contains(zookeeper, jute)
			.doesNotContainPattern(
					"org\\.apache\\.zookeeper:zookeeper:jar:(?!" + Pattern.quote(zookeeperVersion) + ":)")
			// The embedded server is for tests and development: the starter must not
			// bring it
			.doesNotContain(EMBEDDED_MODULE, "io.dropwizard.metrics:metrics-core", "org.xerial.snappy:snappy-java");
	}

	@Test
	void aUserOfTheEmbeddedServerGetsItsLibrariesWithoutNamingThem() throws Exception {
		List<String> modules = new ArrayList<>(MODULES);
		modules.add(EMBEDDED_MODULE);
		String resolved = resolve(modules, dependency("zk-lock-spring-boot-starter", null),
				dependency(EMBEDDED_MODULE, "test"));
		// ZooKeeper declares both 'provided'; the module brings them, at the versions our
		// build manages
		assertThat(resolved).as("dependency tree of a user project:%n%s", resolved)
			.contains("dev.zklock:" + EMBEDDED_MODULE + ":jar:" + property("zklock.version") + ":test")
			.contains("io.dropwizard.metrics:metrics-core:jar:" + property("zklock.metricsVersion") + ":test")
			.contains("org.xerial.snappy:snappy-java:jar:" + property("zklock.snappyVersion") + ":test")
			.contains("org.apache.zookeeper:zookeeper:jar:" + property("zklock.zookeeperVersion") + ":compile");
	}

	@Test
	void aUserImportingTheBomNamesEveryArtifactWithoutAVersion() throws Exception {
		List<String> modules = new ArrayList<>(MODULES);
		modules.add(EMBEDDED_MODULE);
		String version = property("zklock.version");
		String bom = """
				<dependency>
				  <groupId>dev.zklock</groupId>
				  <artifactId>%s</artifactId>
				  <version>%s</version>
				  <type>pom</type>
				  <scope>import</scope>
				</dependency>""".formatted(BOM, version);
		String[] dependencies = modules.stream().map((module) -> """
				<dependency>
				  <groupId>dev.zklock</groupId>
				  <artifactId>%s</artifactId>
				</dependency>""".formatted(module)).toArray(String[]::new);
		String resolved = resolveManaged(modules, bom, dependencies);
		for (String module : modules) {
			assertThat(resolved).as("dependency tree of a user project:%n%s", resolved)
				.contains("dev.zklock:" + module + ":jar:" + version + ":compile");
		}
		// The BOM manages zk-lock only: the ZooKeeper users get is still the one
		// zk-lock-core declares
		assertThat(resolved)
			.contains("org.apache.zookeeper:zookeeper:jar:" + property("zklock.zookeeperVersion") + ":compile");
	}

	private String resolve(List<String> modules, String... dependencies) throws Exception {
		return resolveManaged(modules, "", dependencies);
	}

	/**
	 * Resolves the dependency tree of a throwaway user project with the given
	 * dependencies, with the given modules seeded from this source tree (and
	 * {@code zk-lock-bom}, when the project's dependency management is not empty).
	 * @return the tree, as maven-dependency-plugin writes it
	 */
	private String resolveManaged(List<String> modules, String dependencyManagement, String... dependencies)
			throws Exception {
		String version = property("zklock.version");
		String zookeeperVersion = property("zklock.zookeeperVersion");
		Path sourceRoot = Path.of(property("zklock.sourceRoot")).toRealPath();
		Path userRepo = Path.of(property("zklock.maven.localRepository")).toRealPath();
		String plugin = "org.apache.maven.plugins:maven-dependency-plugin:"
				+ property("zklock.dependencyPluginVersion");

		Path repo = Files.createDirectories(this.dir.resolve("repo"));
		seed(repo, "zk-lock-parent", version, sourceRoot.resolve("pom.xml"), false);
		for (String module : modules) {
			seed(repo, module, version, sourceRoot.resolve(module).resolve("pom.xml"), true);
		}
		if (!dependencyManagement.isEmpty()) {
			seed(repo, BOM, version, sourceRoot.resolve(BOM).resolve("pom.xml"), false);
		}
		// Central, and any repository a POM names, is ~/.m2 read as a remote repository:
		// it keeps no checksums, so Central's checksum policy is "ignore" rather than a
		// warning a file
		String central = """
				<id>central</id>
				<url>%s</url>
				<releases><checksumPolicy>ignore</checksumPolicy></releases>
				<snapshots><enabled>false</enabled></snapshots>
				""".formatted(userRepo.toUri());
		Path settings = Files.writeString(this.dir.resolve("settings.xml"), """
				<settings>
				  <localRepository>%s</localRepository>
				  <mirrors>
				    <mirror>
				      <id>user-local-repository</id>
				      <mirrorOf>*,!central</mirrorOf>
				      <url>%s</url>
				    </mirror>
				  </mirrors>
				  <profiles>
				    <profile>
				      <id>user-local-repository</id>
				      <repositories><repository>%s</repository></repositories>
				      <pluginRepositories><pluginRepository>%s</pluginRepository></pluginRepositories>
				    </profile>
				  </profiles>
				  <activeProfiles><activeProfile>user-local-repository</activeProfile></activeProfiles>
				</settings>
				""".formatted(repo, userRepo.toUri(), central, central));
		Path project = Files.createDirectories(this.dir.resolve("user-app"));
		Files.writeString(project.resolve("pom.xml"), """
				<project xmlns="http://maven.apache.org/POM/4.0.0">
				  <modelVersion>4.0.0</modelVersion>
				  <groupId>com.example</groupId>
				  <artifactId>user-app</artifactId>
				  <version>1.0</version>
				  <dependencyManagement>
				    <dependencies>
				%s
				    </dependencies>
				  </dependencyManagement>
				  <dependencies>
				%s
				  </dependencies>
				</project>
				""".formatted(dependencyManagement, String.join("\n", dependencies)));

		// The plugin may not be in ~/.m2 yet: fetch it the ordinary way (mirror, offline
		// flag and all), outside any project so that no dev.zklock artifact is looked up.
		// Once there, a Maven run less (each costs seconds, a minute on a loaded machine)
		String pluginVersion = property("zklock.dependencyPluginVersion");
		if (!Files.exists(userRepo.resolve("org/apache/maven/plugins/maven-dependency-plugin/" + pluginVersion
				+ "/maven-dependency-plugin-" + pluginVersion + ".jar"))) {
			List<String> fetch = new ArrayList<>(List.of(plugin + ":help", "-Ddetail=false"));
			if (property("zklock.maven.offline").equals("offline=true")) {
				fetch.add("-o");
			}
			mvn(this.dir, fetch);
		}

		Path tree = this.dir.resolve("tree.txt");
		String log = mvn(project, List.of("-s", settings.toString(), plugin + ":tree", "-DoutputFile=" + tree));
		String resolved = Files.readString(tree);

		// Our artifacts were all read from the seeded POMs, none missing and none
		// downloaded
		Matcher matcher = ZKLOCK_NODE.matcher(resolved);
		while (matcher.find()) {
			assertThat(modules).as("seeded dev.zklock artifacts").contains(matcher.group(1));
		}
		// A POM missing from ~/.m2 is only a warning; the losing ZooKeeper's (Curator's)
		// may be
		assertThat(log).doesNotContain("The POM for dev.zklock",
				"The POM for org.apache.zookeeper:zookeeper:jar:" + zookeeperVersion + " ",
				"The POM for org.apache.zookeeper:zookeeper-jute:jar:" + zookeeperVersion + " ");
		try (Stream<Path> files = Files.walk(repo.resolve("dev/zklock"))) {
			assertThat(files.map((file) -> file.getFileName().toString()))
				.as("files Maven downloaded over the seeded ones")
				.noneMatch((name) -> name.equals("_remote.repositories") || name.startsWith("maven-metadata"));
		}
		return resolved;
	}

	/** A user project's dependency on one of our modules. */
	private static String dependency(String artifactId, String scope) {
		return """
				<dependency>
				  <groupId>dev.zklock</groupId>
				  <artifactId>%s</artifactId>
				  <version>%s</version>%s
				</dependency>""".formatted(artifactId, property("zklock.version"),
				(scope != null) ? "\n      <scope>" + scope + "</scope>" : "");
	}

	/**
	 * Lays out a POM (and an empty jar) as {@code install} would, without its
	 * bookkeeping.
	 */
	private static void seed(Path repo, String artifactId, String version, Path pom, boolean jar) throws IOException {
		Path directory = Files.createDirectories(repo.resolve("dev/zklock").resolve(artifactId).resolve(version));
		String base = artifactId + "-" + version;
		Files.copy(pom, directory.resolve(base + ".pom"));
		if (jar) {
			try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(directory.resolve(base + ".jar")))) {
				out.putNextEntry(new ZipEntry("META-INF/"));
				out.closeEntry();
			}
		}
	}

	/**
	 * Runs the Maven running this build in batch mode, failing with its output if it
	 * fails.
	 */
	private String mvn(Path directory, List<String> arguments) throws Exception {
		List<String> command = new ArrayList<>();
		String home = System.getProperty("zklock.maven.home", "");
		Path launcher = Path.of(home, "bin", "mvn");
		command.add((!home.isBlank() && Files.isExecutable(launcher)) ? launcher.toString() : "mvn");
		command.addAll(List.of("-B", "-ntp"));
		command.addAll(arguments);
		Path output = Files.createTempFile(this.dir, "mvn", ".log");
		ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(output.toFile());
		builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
		// The parent build's options (say, a debug agent) are not the child's
		builder.environment().remove("MAVEN_OPTS");
		Process process = builder.start();
		if (!process.waitFor(240, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			fail("%s timed out:%n%s", command, Files.readString(output, StandardCharsets.UTF_8));
		}
		String log = Files.readString(output, StandardCharsets.UTF_8);
		assertThat(process.exitValue()).as("%s exit code; output:%n%s", command, log).isZero();
		return log;
	}

	private static String property(String name) {
		String value = System.getProperty(name);
		assertThat(value).as("system property %s (set by the pom's surefire configuration)", name)
			.isNotBlank()
			.doesNotContain("${");
		return value;
	}

}
