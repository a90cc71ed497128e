package dev.zklock.autoconfigure.endpoint;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.beans.factory.ObjectProvider;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link ZkLocksEndpoint}, available only when exposed like
 * any endpoint ({@code management.endpoints.web.exposure.include=zklocks}); its
 * {@code DELETE} operation, which requests revocation of a key's lock, only with
 * {@code zklock.endpoint.revocation-enabled=true}. With Spring MVC, a key that cannot be
 * a lock key is answered with a {@code 400} problem
 * ({@link InvalidLockKeyProblemResolver}).
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(ZkLockRegistry.class)
@ConditionalOnAvailableEndpoint(ZkLocksEndpoint.class)
@Import(InvalidRequestProblemConfiguration.class)
public final class ZkLocksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ZkLocksEndpoint zkLocksEndpoint(ZkLockRegistry registry, ObjectProvider<ZkLockTemplate> template) {
		return new ZkLocksEndpoint(registry, template.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty("zklock.endpoint.revocation-enabled")
	ZkLocksRevocationWebExtension zkLocksRevocationWebExtension(ZkLockRegistry registry) {
		return new ZkLocksRevocationWebExtension(registry);
	}

}
