package dev.zklock.embedded;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockConnectionDetails;
import dev.zklock.autoconfigure.ZkLockProperties;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} that starts an {@link EmbeddedZooKeeper} when
 * {@code zklock.embedded.enabled=true}, and points zk-lock's client at it. It runs before
 * {@link ZkLockAutoConfiguration}, so the embedded server's
 * {@link ZkLockConnectionDetails} win over {@code zklock.connect-string}.
 * <p>
 * The {@code zklock.embedded.*} properties stay in {@link ZkLockProperties}: zk-lock's
 * auto-configuration reads {@code zklock.embedded.enabled} too, to fail startup when it
 * is {@code true} and this module is missing.
 *
 * @author zk-lock
 */
@AutoConfiguration(before = ZkLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zklock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("zklock.embedded.enabled")
@EnableConfigurationProperties(ZkLockProperties.class)
public final class EmbeddedZooKeeperAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	EmbeddedZooKeeper zkLockEmbeddedZooKeeper(ZkLockProperties properties) throws Exception {
		// The properties checked themselves when bound, so a port out of range has
		// already failed startup naming its property, before the server starts
		ZkLockProperties.Embedded embedded = properties.getEmbedded();
		return new EmbeddedZooKeeper(embedded.getPort(), embedded.getDataDir());
	}

	@Bean
	@ConditionalOnMissingBean(ZkLockConnectionDetails.class)
	ZkLockConnectionDetails embeddedZkLockConnectionDetails(EmbeddedZooKeeper zkLockEmbeddedZooKeeper) {
		return zkLockEmbeddedZooKeeper::getConnectString;
	}

}
