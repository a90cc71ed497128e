package dev.zklock.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.aop.DistributedLockAdvisor;
import dev.zklock.aop.DistributedLockProxyRegistrar;
import dev.zklock.aop.ProxyDistributedLockConfiguration;
import dev.zklock.autoconfigure.diagnostics.EmbeddedZooKeeperModuleMissingException;
import dev.zklock.autoconfigure.diagnostics.ZooKeeperUnreachableException;
import dev.zklock.autoconfigure.logging.CuratorUnhandledErrorLogger;
import dev.zklock.autoconfigure.metadata.UnknownZkLockPropertiesCheck;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for zk-lock: a Curator client built from {@code zklock.*} (unless
 * the application has its own {@link CuratorFramework}, such as Spring Cloud
 * Zookeeper's), a {@link ZkLockRegistry}, and the
 * {@link dev.zklock.annotation.DistributedLock @DistributedLock} advisor.
 *
 * @author zk-lock
 */
// After Spring Cloud Zookeeper's, so that its CuratorFramework, when there is one, is the
// client zk-lock uses
@AutoConfiguration(after = AopAutoConfiguration.class,
		afterName = "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration")
@ConditionalOnClass(CuratorFramework.class)
@ConditionalOnBooleanProperty(name = "zklock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ZkLockProperties.class)
public final class ZkLockAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockAutoConfiguration.class);

	/**
	 * Fails startup on {@code zklock.*} keys that no module declares. A bean factory
	 * post-processor, so that it fails before any bean exists: an ordinary bean would
	 * come after the client, which could already be connecting to the default connect
	 * string. It is registered after
	 * {@link EmbeddedZooKeeperModuleMissingConfiguration}'s check (nested configurations
	 * come first), whose report stays the one for {@code zklock.embedded.enabled=true}
	 * without its module.
	 */
	@Bean
	static UnknownZkLockPropertiesCheck zkLockUnknownPropertiesCheck(Environment environment) {
		return new UnknownZkLockPropertiesCheck(environment);
	}

	@Bean
	@ConditionalOnMissingBean(ZkLockConnectionDetails.class)
	PropertiesZkLockConnectionDetails zkLockConnectionDetails(ZkLockProperties properties) {
		return new PropertiesZkLockConnectionDetails(properties);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	CuratorFramework zkLockCuratorFramework(ZkLockProperties properties, ZkLockConnectionDetails connectionDetails,
			ObjectProvider<CuratorFrameworkBuilderCustomizer> customizers) throws InterruptedException {
		String connectString = connectionDetails.getConnectString();
		ZkLockPropertiesValidator.validateConnectString("zklock.connect-string", connectString);
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(millis(properties.getSessionTimeout()))
			.connectionTimeoutMs(millis(properties.getConnectionTimeout()))
			.retryPolicy(new ExponentialBackoffRetry(millis(properties.getRetry().getBaseSleep()),
					properties.getRetry().getMaxRetries(), millis(properties.getRetry().getMaxSleep())));
		if (properties.getNamespace() != null && !properties.getNamespace().isEmpty()) {
			builder.namespace(properties.getNamespace());
		}
		ZkLockProperties.Auth auth = properties.getAuth();
		if (auth.isEnabled()) {
			String credentials = auth.getUsername() + ":" + ((auth.getPassword() != null) ? auth.getPassword() : "");
			builder.authorization("digest", credentials.getBytes(StandardCharsets.UTF_8))
				.aclProvider(new CreatorOnlyAclProvider());
		}
		if (properties.getTls().isEnabled()) {
			builder.zkClientConfig(TlsClientConfig.of(properties.getTls()));
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		CuratorFramework client = builder.build();
		client.start();
		awaitInitialConnection(client, connectString, properties);
		return client;
	}

	private static void awaitInitialConnection(CuratorFramework client, String connectString,
			ZkLockProperties properties) throws InterruptedException {
		Duration wait = properties.getInitialConnectWait();
		if (client.blockUntilConnected(millis(wait), TimeUnit.MILLISECONDS)) {
			return;
		}
		if (properties.isFailFast()) {
			throw unreachable(client, connectString, properties);
		}
		// ZooKeeper's own line for a host that does not resolve is off by default: name
		// it here, once
		List<String> unresolved = unresolvedHosts(connectString);
		logger.warn(
				"ZooKeeper at '{}' could not be reached within {} ms{}; starting anyway. Locks fail until it "
						+ "can be reached, and health reports DOWN. Set zklock.fail-fast=true to fail startup instead.",
				connectString, wait.toMillis(),
				unresolved.isEmpty() ? "" : " (host name not resolved: " + String.join(", ", unresolved) + ")");
	}

	/**
	 * Close the client and describe what it tried, for the failure report.
	 */
	private static ZooKeeperUnreachableException unreachable(CuratorFramework client, String connectString,
			ZkLockProperties properties) {
		ZooKeeper.@Nullable States state = null;
		@Nullable Exception reported = null;
		try {
			// Also hands over an error Curator queued in the background, if there is one
			state = client.getZookeeperClient().getZooKeeper().getState();
		}
		catch (Exception ex) {
			reported = ex;
		}
		client.close();
		String namespace = properties.getNamespace();
		return new ZooKeeperUnreachableException(connectString, properties.getInitialConnectWait(),
				properties.getConnectionTimeout(), properties.getSessionTimeout(), properties.getTls().isEnabled(),
				properties.getAuth().isEnabled(), (namespace != null && !namespace.isEmpty()) ? namespace : null, state,
				unresolvedHosts(connectString), reported);
	}

	/**
	 * The host names of a connect string that do not resolve. ZooKeeper only logs these,
	 * at each attempt, and goes on trying.
	 */
	static List<String> unresolvedHosts(String connectString) {
		int chroot = connectString.indexOf('/');
		String hosts = (chroot >= 0) ? connectString.substring(0, chroot) : connectString;
		Set<String> unresolved = new LinkedHashSet<>();
		for (String hostPort : hosts.split(",")) {
			String host = host(hostPort.trim());
			if (host.isEmpty()) {
				continue;
			}
			try {
				InetAddress.getByName(host);
			}
			catch (UnknownHostException ex) {
				unresolved.add(host);
			}
		}
		return List.copyOf(unresolved);
	}

	private static String host(String hostPort) {
		if (hostPort.startsWith("[")) {
			int end = hostPort.indexOf(']');
			return (end > 0) ? hostPort.substring(1, end) : hostPort;
		}
		int colon = hostPort.lastIndexOf(':');
		return (colon >= 0) ? hostPort.substring(0, colon) : hostPort;
	}

	@Bean
	@ConditionalOnMissingBean
	ZkLockRegistry zkLockRegistry(CuratorFramework client, ZkLockProperties properties) {
		if (client.getState() == CuratorFrameworkState.LATENT) {
			// An application-provided client that nobody started
			client.start();
		}
		// Curator's own logger for these is off by default
		// (ZkLockLogLevelsEnvironmentPostProcessor)
		client.getUnhandledErrorListenable().addListener(new CuratorUnhandledErrorLogger());
		ZkLockProperties.Lock lock = properties.getLock();
		ZkLockOptions options = ZkLockOptions.defaults()
			.withRootPath(lock.getRootPath())
			.withDefaultWait(lock.getDefaultWait())
			.withMaxLocalHandoffs(lock.getMaxLocalHandoffs())
			.withLostLockPolicy(lock.getLostLockPolicy())
			.withReleaseTimeout(lock.getReleaseTimeout())
			.withLinger(lock.getLinger())
			.withMaxKeysPerCall(lock.getMaxKeysPerCall());
		if (properties.getAuth().isEnabled()) {
			options = options.withAcl(ZooDefs.Ids.CREATOR_ALL_ACL);
		}
		return new ZkLockRegistry(client, options);
	}

	@Bean
	@ConditionalOnMissingBean
	ZkLockTemplate zkLockTemplate(ZkLockRegistry registry, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<ZkLockAcquireObservationConvention> acquireObservationConvention,
			ObjectProvider<ZkLockHeldObservationConvention> heldObservationConvention) {
		ZkLockTemplate template = new ZkLockTemplate(registry,
				observationRegistry.getIfAvailable(() -> ObservationRegistry.NOOP));
		acquireObservationConvention.ifAvailable(template::setAcquireObservationConvention);
		heldObservationConvention.ifAvailable(template::setHeldObservationConvention);
		return template;
	}

	private static int millis(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
	}

	/**
	 * {@code @DistributedLock} support: Spring's own shape
	 * ({@link ProxyDistributedLockConfiguration}), with an auto-proxy creator that
	 * honours {@code spring.aop.proxy-target-class}. Backs off when the application
	 * enables it itself with {@code @EnableDistributedLocks}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(DistributedLockAdvisor.class)
	@Import({ DistributedLockProxyRegistrar.class, ProxyDistributedLockConfiguration.class })
	static final class DistributedLockConfiguration {

	}

	/**
	 * {@code zklock.embedded.enabled=true} without the module that holds the embedded
	 * server. The check is a bean factory post-processor so that it fails before any bean
	 * exists: were it an ordinary bean, the client could already be connecting to
	 * {@code zklock.connect-string}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("zklock.embedded.enabled")
	@ConditionalOnMissingClass(EmbeddedZooKeeperModuleMissingException.AUTO_CONFIGURATION)
	static final class EmbeddedZooKeeperModuleMissingConfiguration {

		@Bean
		static BeanFactoryPostProcessor zkLockEmbeddedZooKeeperModuleCheck() {
			return (beanFactory) -> {
				throw new EmbeddedZooKeeperModuleMissingException();
			};
		}

	}

	/**
	 * Creator-only ACL for every node the client creates, once it authenticates.
	 */
	private static final class CreatorOnlyAclProvider implements ACLProvider {

		@Override
		public List<ACL> getDefaultAcl() {
			return ZooDefs.Ids.CREATOR_ALL_ACL;
		}

		@Override
		public List<ACL> getAclForPath(String path) {
			return ZooDefs.Ids.CREATOR_ALL_ACL;
		}

	}

}
