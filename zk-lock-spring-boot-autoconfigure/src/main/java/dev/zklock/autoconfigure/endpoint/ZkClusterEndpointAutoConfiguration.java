package dev.zklock.autoconfigure.endpoint;

import dev.zklock.autoconfigure.view.ZkLockViewAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.view.ViewOptions;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link ZkClusterEndpoint} and its live page, with
 * {@code zklock.view.enabled=true} (which also exposes it over HTTP); its {@code DELETE}
 * operation, the page's revoke action, only with
 * {@code zklock.endpoint.revocation-enabled=true}. With Spring MVC, a request the view
 * refuses is answered with a {@code 400} problem ({@link InvalidLockKeyProblemResolver}).
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockViewAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBooleanProperty("zklock.view.enabled")
@ConditionalOnBean({ ZkLockRegistry.class, ViewOptions.class })
@ConditionalOnAvailableEndpoint(ZkClusterEndpoint.class)
@Import(InvalidRequestProblemConfiguration.class)
public final class ZkClusterEndpointAutoConfiguration {

	private static final String REVOCATION_ENABLED = "zklock.endpoint.revocation-enabled";

	@Bean
	@ConditionalOnMissingBean
	ZkClusterEndpoint zkClusterEndpoint(ZkLockRegistry registry, ViewOptions options, Environment environment) {
		return new ZkClusterEndpoint(registry, options,
				environment.getProperty(REVOCATION_ENABLED, Boolean.class, false));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(REVOCATION_ENABLED)
	ZkClusterRevocationWebExtension zkClusterRevocationWebExtension(ZkLockRegistry registry) {
		return new ZkClusterRevocationWebExtension(registry);
	}

}
