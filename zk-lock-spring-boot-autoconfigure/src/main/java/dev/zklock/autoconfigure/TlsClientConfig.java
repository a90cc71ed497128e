package dev.zklock.autoconfigure;

import java.util.function.BiConsumer;

import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@code zklock.tls.*} into the {@link ZKClientConfig} of a TLS client: secure
 * mode, the Netty socket ZooKeeper requires for it, and the stores. Per client, not
 * through system properties, so other ZooKeeper clients in the JVM are unaffected.
 *
 * @author zk-lock
 */
final class TlsClientConfig {

	private TlsClientConfig() {
	}

	static ZKClientConfig of(ZkLockProperties.Tls tls) {
		ZKClientConfig config = new ZKClientConfig();
		config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
		config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
		try (ClientX509Util x509 = new ClientX509Util()) {
			BiConsumer<String, @Nullable String> set = (name, value) -> {
				if (value != null && !value.isEmpty()) {
					config.setProperty(name, value);
				}
			};
			set.accept(x509.getSslKeystoreLocationProperty(), tls.getKeyStore());
			set.accept(x509.getSslKeystorePasswdProperty(), tls.getKeyStorePassword());
			set.accept(x509.getSslKeystoreTypeProperty(), tls.getKeyStoreType());
			set.accept(x509.getSslTruststoreLocationProperty(), tls.getTrustStore());
			set.accept(x509.getSslTruststorePasswdProperty(), tls.getTrustStorePassword());
			set.accept(x509.getSslTruststoreTypeProperty(), tls.getTrustStoreType());
			config.setProperty(x509.getSslHostnameVerificationEnabledProperty(),
					Boolean.toString(tls.isHostnameVerification()));
		}
		return config;
	}

}
