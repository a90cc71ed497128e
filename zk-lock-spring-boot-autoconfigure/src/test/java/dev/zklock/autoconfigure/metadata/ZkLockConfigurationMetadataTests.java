package dev.zklock.autoconfigure.metadata;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.zklock.core.LostLockPolicy;
import dev.zklock.core.leader.OnSuspended;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ZkLockConfigurationMetadata}: what it reads from the classpath and the
 * property it suggests for a key.
 */
@Timeout(30)
class ZkLockConfigurationMetadataTests {

	private final ZkLockConfigurationMetadata metadata = ZkLockConfigurationMetadata.load(getClass().getClassLoader(),
			false);

	@Test
	void suggestsThePropertyMeant() {
		assertThat(nearest("zklock.conect-string", '.')).isEqualTo("zklock.connect-string");
		assertThat(nearest("zklock.lock.default-wiat", '.')).isEqualTo("zklock.lock.default-wait");
		assertThat(nearest("zklock.sesion-timout", '.')).isEqualTo("zklock.session-timeout");
		assertThat(nearest("zklock.tls.keystore-pasword", '.')).isEqualTo("zklock.tls.key-store-password");
		assertThat(nearest("zklock.embeded.enabled", '.')).isEqualTo("zklock.embedded.enabled");
		assertThat(nearest("zklock.lock-root-path", '.')).isEqualTo("zklock.lock.root-path");
		assertThat(nearest("zklock.failOnUnknownProperty", '.')).isEqualTo("zklock.fail-on-unknown-properties");
		assertThat(nearest("ZKLOCK_CONECT_STRING", '_')).isEqualTo("zklock.connect-string");
		assertThat(nearest("ZKLOCK_LOCK_DEFAULT_WIAT", '_')).isEqualTo("zklock.lock.default-wait");
	}

	@Test
	void suggestsNothingFarFromEveryProperty() {
		assertThat(nearest("zklock.frobnicate", '.')).isNull();
		assertThat(nearest("zklock.x", '.')).isNull();
		assertThat(nearest("zklock.my-app.order-lock-key", '.')).isNull();
	}

	@Test
	void theAutoConfigurationModuleAloneKnowsItsPropertiesAndNoOtherModules() {
		ClassLoader loader = UnknownZkLockPropertiesTests.withLaterModule();
		ZkLockConfigurationMetadata own = ZkLockConfigurationMetadata.load(loader, true);
		ZkLockConfigurationMetadata all = ZkLockConfigurationMetadata.load(loader, false);
		for (String key : new String[] { "zklock.connect-string", "zklock.lock.default-wait",
				"zklock.fail-on-unknown-properties", "zklock.embedded.port", "zklock.shedlock.enabled" }) {
			assertThat(own.isKnown(source(key))).as(key).isTrue();
			assertThat(all.isKnown(source(key))).as(key).isTrue();
		}
		assertThat(own.isKnown(source("zklock.later.timeout"))).isFalse();
		assertThat(all.isKnown(source("zklock.later.timeout"))).isTrue();
	}

	@Test
	void recognizesTheKeysBootMapsToZkLock() {
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zklock.x", false)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zklock", false)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zklock[0]", false)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("ZKLOCK.x", false)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zk-lock.x", false)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("ZKLOCK_X", true)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zklock.x", true)).isTrue();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("ZKLOCK_X", false)).isFalse();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zklocks.x", false)).isFalse();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("zk.lock.x", false)).isFalse();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("management.health.zklock.enabled", false)).isFalse();
		assertThat(UnknownZkLockPropertiesCheck.isZkLockKey("ZK_LOCK_X", true)).isFalse();
	}

	@Test
	void theOptOutIsInTheGeneratedMetadataWithItsDescription() throws IOException {
		ConfigurationMetadataProperty property = generatedProperties().get("zklock.fail-on-unknown-properties");
		assertThat(property).isNotNull();
		assertThat(property.getDescription()).startsWith("Whether startup fails when the environment has a zklock.*");
		assertThat(property.getDefaultValue()).isEqualTo(true);
	}

	/**
	 * A key below a property of another type (a bean whose properties the metadata does
	 * not list) would be reported although Spring Boot binds it: zk-lock's properties are
	 * single values, nested classes that the metadata describes, or a list of strings
	 * (whose indexed keys belong to it: {@link #keysBelowAListPropertyAreKnown()}).
	 */
	@Test
	void everyZkLockPropertyIsASingleValue() throws IOException {
		Set<String> singleValues = Set.of(String.class.getName(), Boolean.class.getName(), Integer.class.getName(),
				Duration.class.getName(), Path.class.getName(), LostLockPolicy.class.getName(),
				OnSuspended.class.getName(), "java.util.List<java.lang.String>");
		assertThat(generatedProperties().values()).filteredOn((property) -> property.getId().startsWith("zklock."))
			.isNotEmpty()
			.allSatisfy((property) -> assertThat(property.getType()).as(property.getId()).isIn(singleValues));
	}

	@Test
	void keysBelowAListPropertyAreKnown() {
		assertThat(this.metadata.isKnown(source("zklock.leadership.groups[0]"))).isTrue();
		assertThat(this.metadata.isKnown(source("zklock.leadership.groups"))).isTrue();
	}

	private static ConfigurationPropertySource source(String key) {
		return ConfigurationPropertySource.from(new MapPropertySource("test", Map.of(key, "value")));
	}

	private String nearest(String key, char separator) {
		return this.metadata.nearest(ConfigurationPropertyName.adapt(key, separator));
	}

	private Map<String, ConfigurationMetadataProperty> generatedProperties() throws IOException {
		ConfigurationMetadataRepositoryJsonBuilder builder = ConfigurationMetadataRepositoryJsonBuilder.create();
		for (URL url : Collections
			.list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
			if (url.toString().contains("zk-lock-spring-boot-autoconfigure")) {
				try (InputStream input = url.openStream()) {
					builder.withJsonResource(input);
				}
			}
		}
		return builder.build().getAllProperties();
	}

}
