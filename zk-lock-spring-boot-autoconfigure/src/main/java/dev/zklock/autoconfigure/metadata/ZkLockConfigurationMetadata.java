package dev.zklock.autoconfigure.metadata;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.util.ClassUtils;

/**
 * The {@code zklock.*} properties that the modules on the classpath declare: read from
 * every {@code META-INF/spring-configuration-metadata.json} and
 * {@code META-INF/additional-spring-configuration-metadata.json} on it, the files that
 * Spring Boot's configuration processor writes from {@code @ConfigurationProperties}
 * classes, with Boot's own reader of them. A module's properties are known whenever its
 * jar is there, with no list to keep in step here.
 * <p>
 * Properties (deprecated ones too) and groups (the nested objects, and what an empty YAML
 * section binds to) are names a key may bind to. A key below a property of a map,
 * collection or array type belongs to that property (a map's keys, a list's indexes). The
 * processor describes nested types only when they are nested classes of the properties
 * class or marked {@code @NestedConfigurationProperty}: a module's nested properties must
 * be declared one of these ways to be known. Properties that a module leaves out of its
 * metadata on purpose ({@code "ignored"}) are not known.
 *
 * @author zk-lock
 */
final class ZkLockConfigurationMetadata {

	/**
	 * First element of every zk-lock property name.
	 */
	static final String PREFIX = "zklock";

	private static final List<String> LOCATIONS = List.of("META-INF/spring-configuration-metadata.json",
			"META-INF/additional-spring-configuration-metadata.json");

	private final Set<ConfigurationPropertyName> names = new LinkedHashSet<>();

	private final Set<ConfigurationPropertyName> containers = new LinkedHashSet<>();

	/**
	 * Each property's declared name by its letters and digits alone, sorted by name so
	 * that the nearest of equally near names is always the same one.
	 */
	private final Map<String, String> properties = new TreeMap<>();

	private final Set<String> containerLetters = new HashSet<>();

	private ZkLockConfigurationMetadata() {
	}

	/**
	 * Read the {@code zklock.*} entries of configuration metadata files that a class
	 * loader sees: those of zk-lock's auto-configuration module (this class's), which
	 * declares most of zk-lock's properties in a few kilobytes, or every file on the
	 * classpath, hundreds of kilobytes in an application, of which only those that hold
	 * the prefix are parsed.
	 * @param classLoader the class loader, or {@code null} for the default one
	 * @param autoConfigurationModuleOnly whether to read only the files of zk-lock's
	 * auto-configuration module
	 * @return the metadata
	 * @throws IllegalStateException if a file cannot be read or parsed
	 */
	static ZkLockConfigurationMetadata load(@Nullable ClassLoader classLoader, boolean autoConfigurationModuleOnly) {
		ClassLoader loader = (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader();
		ZkLockConfigurationMetadata metadata = new ZkLockConfigurationMetadata();
		if (loader == null) {
			return metadata;
		}
		String root = autoConfigurationModuleOnly ? classpathRoot(loader) : "";
		if (root == null) {
			return metadata;
		}
		ConfigurationMetadataRepositoryJsonBuilder builder = ConfigurationMetadataRepositoryJsonBuilder.create();
		for (String location : LOCATIONS) {
			for (URL url : resources(loader, location)) {
				if (!url.toString().startsWith(root)) {
					continue;
				}
				byte[] json = read(url);
				if (new String(json, StandardCharsets.UTF_8).contains(PREFIX)) {
					try {
						builder.withJsonResource(new ByteArrayInputStream(json), StandardCharsets.UTF_8);
					}
					catch (IOException | RuntimeException ex) {
						throw new IllegalStateException("Could not parse the configuration metadata in " + url, ex);
					}
				}
			}
		}
		ConfigurationMetadataRepository repository = builder.build();
		for (String group : repository.getAllGroups().keySet()) {
			ConfigurationPropertyName name = zkLockName(group);
			if (name != null) {
				metadata.names.add(name);
			}
		}
		for (ConfigurationMetadataProperty property : repository.getAllProperties().values()) {
			ConfigurationPropertyName name = zkLockName(property.getId());
			if (name != null) {
				metadata.names.add(name);
				metadata.properties.put(letters(name.toString()), name.toString());
				if (property.getType() != null && isContainer(property.getType(), loader)) {
					metadata.containers.add(name);
					metadata.containerLetters.add(letters(name.toString()));
				}
			}
		}
		return metadata;
	}

	/**
	 * The URL of the classpath root that holds this class, as the class loader writes it
	 * (a directory, a jar, or a jar nested in Spring Boot's executable jar).
	 */
	private static @Nullable String classpathRoot(ClassLoader loader) {
		String resource = ClassUtils.convertClassNameToResourcePath(ZkLockConfigurationMetadata.class.getName())
				+ ClassUtils.CLASS_FILE_SUFFIX;
		URL url = loader.getResource(resource);
		if (url == null || !url.toString().endsWith(resource)) {
			return null;
		}
		String string = url.toString();
		return string.substring(0, string.length() - resource.length());
	}

	private static List<URL> resources(ClassLoader loader, String location) {
		try {
			return Collections.list(loader.getResources(location));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not list the configuration metadata files " + location, ex);
		}
	}

	private static byte[] read(URL url) {
		try (InputStream input = url.openStream()) {
			return input.readAllBytes();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read the configuration metadata in " + url, ex);
		}
	}

	private static @Nullable ConfigurationPropertyName zkLockName(@Nullable String name) {
		if (name == null) {
			return null;
		}
		ConfigurationPropertyName parsed = ConfigurationPropertyName.ofIfValid(name);
		return (parsed != null && !parsed.isEmpty() && PREFIX.equals(parsed.getElement(0, Form.UNIFORM))) ? parsed
				: null;
	}

	private static boolean isContainer(String type, ClassLoader loader) {
		if (type.endsWith("[]")) {
			return true;
		}
		int generic = type.indexOf('<');
		String raw = (generic >= 0) ? type.substring(0, generic) : type;
		// Only the JDK's types are loaded: a property's own types are never maps
		if (generic < 0 && !raw.startsWith("java.util.")) {
			return false;
		}
		try {
			Class<?> resolved = ClassUtils.forName(raw, loader);
			return Map.class.isAssignableFrom(resolved) || Collection.class.isAssignableFrom(resolved);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Whether the metadata declares no {@code zklock.*} property at all, as when the
	 * modules were built without the configuration processor.
	 * @return whether nothing is known
	 */
	boolean isEmpty() {
		return this.properties.isEmpty();
	}

	/**
	 * Whether Spring Boot binds what a configuration property source holds to a property
	 * that the metadata declares: the source is asked, so that every relaxed form Boot
	 * accepts (camel case, underscores, the environment variable forms) is accepted here
	 * in the same way.
	 * @param source a source holding the key to check
	 * @return whether the key is known
	 */
	boolean isKnown(ConfigurationPropertySource source) {
		for (ConfigurationPropertyName name : this.names) {
			if (source.getConfigurationProperty(name) != null) {
				return true;
			}
		}
		for (ConfigurationPropertyName container : this.containers) {
			if (source.containsDescendantOf(container) == ConfigurationPropertyState.PRESENT) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The declared property whose name is nearest to a key, by the letters and digits of
	 * both (so separators and case do not count, and an environment variable compares as
	 * well as a property), when it is near enough to be what was meant. The elements of a
	 * key that follow a map, collection or array property are that property's own: for
	 * such a property, the key's leading elements count, at the cost of one edit.
	 * @param key the key, adapted to a name as Spring Boot does
	 * @return the property name, or {@code null}
	 */
	@Nullable String nearest(ConfigurationPropertyName key) {
		List<String> leading = new ArrayList<>();
		StringBuilder letters = new StringBuilder();
		for (int i = 0; i < key.getNumberOfElements(); i++) {
			letters.append(letters(key.getElement(i, Form.UNIFORM)));
			leading.add(letters.toString());
		}
		String whole = letters.toString();
		// A third of what follows the prefix may differ: one typo in a short name, more
		// in
		// a long one
		int allowed = Math.max(2, (whole.length() - PREFIX.length()) / 3);
		String nearest = null;
		int nearestDistance = Integer.MAX_VALUE;
		for (Map.Entry<String, String> property : this.properties.entrySet()) {
			int distance = distance(whole, property.getKey());
			if (this.containerLetters.contains(property.getKey())) {
				for (int i = 0; i < leading.size() - 1; i++) {
					distance = Math.min(distance, distance(leading.get(i), property.getKey()) + 1);
				}
			}
			if (distance < nearestDistance) {
				nearest = property.getValue();
				nearestDistance = distance;
			}
		}
		return (nearestDistance <= allowed) ? nearest : null;
	}

	private static String letters(String name) {
		StringBuilder letters = new StringBuilder(name.length());
		for (int i = 0; i < name.length(); i++) {
			char ch = Character.toLowerCase(name.charAt(i));
			if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
				letters.append(ch);
			}
		}
		return letters.toString();
	}

	/**
	 * Edit distance in which swapping two adjacent characters is one edit, as a typo is
	 * (optimal string alignment).
	 */
	static int distance(String a, String b) {
		int[][] d = new int[a.length() + 1][b.length() + 1];
		for (int i = 0; i <= a.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= b.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			for (int j = 1; j <= b.length(); j++) {
				int substitution = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + substitution);
				if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[a.length()][b.length()];
	}

}
