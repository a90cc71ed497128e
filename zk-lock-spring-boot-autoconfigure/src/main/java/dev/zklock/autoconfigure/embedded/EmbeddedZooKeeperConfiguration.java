package dev.zklock.autoconfigure.embedded;

import java.util.List;
import java.util.Map;

import dev.zklock.autoconfigure.ZkLockConnectionDetails;
import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.autoconfigure.ZkLockPropertiesValidator;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Starts an {@link EmbeddedZooKeeper} when {@code zklock.embedded.enabled=true}, and points the
 * client at it. Imported by the main auto-configuration ahead of its own beans, so the
 * embedded server's connection details win over {@code zklock.connect-string}.
 *
 * @author zk-lock
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("zklock.embedded.enabled")
public final class EmbeddedZooKeeperConfiguration {

	/** Server-side classes ZooKeeper declares 'provided', by the artifact that brings each. */
	private static final Map<String, String> SERVER_CLASSES = Map.of("com.codahale.metrics.Reservoir",
			"io.dropwizard.metrics:metrics-core", "org.xerial.snappy.SnappyInputStream",
			"org.xerial.snappy:snappy-java");

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	EmbeddedZooKeeper zkLockEmbeddedZooKeeper(ZkLockProperties properties, ResourceLoader resourceLoader)
			throws Exception {
		ClassLoader classLoader = resourceLoader.getClassLoader();
		List<String> missing = SERVER_CLASSES.entrySet()
			.stream()
			.filter((entry) -> !ClassUtils.isPresent(entry.getKey(), classLoader))
			.map(Map.Entry::getValue)
			.sorted()
			.toList();
		if (!missing.isEmpty()) {
			// Checked up front: ZooKeeper's own start would time out and then hang in close()
			throw new EmbeddedZooKeeperDependenciesMissingException(missing);
		}
		ZkLockPropertiesValidator.validate(properties);
		ZkLockProperties.Embedded embedded = properties.getEmbedded();
		return new EmbeddedZooKeeper(embedded.getPort(), embedded.getDataDir());
	}

	@Bean
	@ConditionalOnMissingBean(ZkLockConnectionDetails.class)
	ZkLockConnectionDetails embeddedZkLockConnectionDetails(EmbeddedZooKeeper zkLockEmbeddedZooKeeper) {
		return zkLockEmbeddedZooKeeper::getConnectString;
	}

}
