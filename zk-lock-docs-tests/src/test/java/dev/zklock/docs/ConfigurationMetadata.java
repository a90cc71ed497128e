package dev.zklock.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataGroup;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * The configuration metadata of the zk-lock modules on the test class path (the
 * auto-configuration's, the embedded server's, and any later module's): the properties
 * the documentation must list, and the only {@code zklock.*} keys it may name.
 */
final class ConfigurationMetadata {

	private static final String LOCATION = "META-INF/spring-configuration-metadata.json";

	private final ConfigurationMetadataRepository repository;

	private final List<URL> sources;

	private ConfigurationMetadata(ConfigurationMetadataRepository repository, List<URL> sources) {
		this.repository = repository;
		this.sources = sources;
	}

	static ConfigurationMetadata load() {
		try {
			List<URL> sources = new ArrayList<>();
			ConfigurationMetadataRepositoryJsonBuilder builder = ConfigurationMetadataRepositoryJsonBuilder.create();
			for (URL url : Collections.list(ConfigurationMetadata.class.getClassLoader().getResources(LOCATION))) {
				// A zk-lock module's jar, or its classes directory in the reactor
				if (url.toString().contains("zk-lock-")) {
					sources.add(url);
					try (InputStream in = url.openStream()) {
						builder.withJsonResource(in);
					}
				}
			}
			return new ConfigurationMetadata(builder.build(), sources);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	List<URL> sources() {
		return this.sources;
	}

	/**
	 * Every property, by name.
	 * @return the properties, in name order
	 */
	Map<String, ConfigurationMetadataProperty> properties() {
		return new TreeMap<>(this.repository.getAllProperties());
	}

	Map<String, ConfigurationMetadataGroup> groups() {
		return this.repository.getAllGroups();
	}

	/**
	 * Whether a key is a property, under Spring Boot's relaxed rules
	 * ({@code zklock.connectString} is {@code zklock.connect-string}).
	 * @param key the key
	 * @return whether the metadata declares it
	 */
	boolean isProperty(String key) {
		ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
		return properties().keySet().stream().map(ConfigurationPropertyName::of).anyMatch(name::equals);
	}

	/**
	 * Whether a key names a group of properties ({@code zklock.tls},
	 * {@code zklock.lock}).
	 * @param key the key
	 * @return whether some property is under it
	 */
	boolean isGroup(String key) {
		ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
		return properties().keySet()
			.stream()
			.map(ConfigurationPropertyName::of)
			.anyMatch((property) -> name.isAncestorOf(property));
	}

}
