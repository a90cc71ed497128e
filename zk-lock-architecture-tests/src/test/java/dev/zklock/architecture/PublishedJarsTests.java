package dev.zklock.architecture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import javax.lang.model.SourceVersion;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every jar a release publishes names its module: {@code Automatic-Module-Name} in its
 * manifest, {@code dev.zklock.} and the artifactId after {@code zk-lock-}, dots for
 * dashes ({@code zk-lock-spring-boot-autoconfigure}:
 * {@code dev.zklock.spring.boot.autoconfigure}), so that the name a user's
 * {@code module-info.java} requires does not change with the jar's file name. Runs in
 * this module's package phase (see its pom), when the other modules' jars are built.
 */
@Timeout(60)
class PublishedJarsTests {

	private static final Attributes.Name AUTOMATIC_MODULE_NAME = new Attributes.Name("Automatic-Module-Name");

	@Test
	void everyPublishedJarNamesItsModule() throws IOException {
		String version = System.getProperty("architecture.projectVersion", "");
		assertThat(version).as("architecture.projectVersion").isNotBlank();
		List<Modules.Module> published = Modules.all()
			.stream()
			.filter((module) -> module.published() && module.packaging().equals("jar"))
			.toList();
		assertThat(published).extracting(Modules.Module::artifactId)
			.containsExactlyInAnyOrder("zk-lock-core", "zk-lock-spring", "zk-lock-spring-boot-autoconfigure",
					"zk-lock-embedded-zookeeper", "zk-lock-spring-boot-starter", "zk-lock-test");
		List<String> problems = new ArrayList<>();
		for (Modules.Module module : published) {
			Path jar = module.directory().resolve("target/" + module.artifactId() + "-" + version + ".jar");
			problems.addAll(problems(jar, moduleName(module.artifactId())));
		}
		assertThat(problems).isEmpty();
	}

	@Test
	void aJarWithoutTheNameFails(@TempDir Path directory) throws IOException {
		Path jar = directory.resolve("zk-lock-core-0.0.0.jar");
		Manifest manifest = new Manifest();
		manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
		try (OutputStream out = Files.newOutputStream(jar);
				JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
			// A manifest and nothing else
		}
		assertThat(problems(jar, "dev.zklock.core"))
			.containsExactly("zk-lock-core-0.0.0.jar: Automatic-Module-Name is null, not dev.zklock.core");
		assertThat(problems(directory.resolve("missing.jar"), "dev.zklock.core"))
			.containsExactly("missing.jar: no such jar (the module's package phase makes it)");
	}

	@Test
	void moduleNamesAreJavaModuleNames() {
		assertThat(moduleName("zk-lock-spring-boot-autoconfigure")).isEqualTo("dev.zklock.spring.boot.autoconfigure");
		assertThat(moduleName("zk-lock-core")).isEqualTo("dev.zklock.core");
	}

	/** The module name of a zk-lock artifact. */
	static String moduleName(String artifactId) {
		String name = "dev.zklock." + artifactId.replaceFirst("^zk-lock-", "").replace('-', '.');
		assertThat(SourceVersion.isName(name)).as("%s is a legal module name", name).isTrue();
		return name;
	}

	private static List<String> problems(Path jar, String expectedName) throws IOException {
		if (!Files.isRegularFile(jar)) {
			return List.of(jar.getFileName() + ": no such jar (the module's package phase makes it)");
		}
		try (JarFile jarFile = new JarFile(jar.toFile())) {
			Manifest manifest = jarFile.getManifest();
			Object name = (manifest != null) ? manifest.getMainAttributes().get(AUTOMATIC_MODULE_NAME) : null;
			if (!expectedName.equals(name)) {
				return List.of(jar.getFileName() + ": Automatic-Module-Name is " + name + ", not " + expectedName);
			}
			return List.of();
		}
	}

}
