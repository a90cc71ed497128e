package dev.zklock.autoconfigure.endpoint;

import dev.zklock.autoconfigure.leadership.ZkLeadershipAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

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
 * Auto-configuration} for the {@link ZkLeadersEndpoint}, available only when exposed like
 * any endpoint ({@code management.endpoints.web.exposure.include=zkleaders}); its
 * {@code DELETE} operation, which asks a group's leader to hand over, only with
 * {@code zklock.endpoint.revocation-enabled=true}, the switch of the {@code zklocks}
 * endpoint's revocation. With Spring MVC, a name that cannot be a group name is answered
 * with a {@code 400} problem ({@link InvalidLockKeyProblemResolver}).
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLeadershipAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({ ZkLockRegistry.class, ZkLeadership.class })
@ConditionalOnAvailableEndpoint(ZkLeadersEndpoint.class)
@Import(InvalidRequestProblemConfiguration.class)
public final class ZkLeadersEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ZkLeadersEndpoint zkLeadersEndpoint(ZkLeadership leadership, ZkLockRegistry registry) {
		return new ZkLeadersEndpoint(leadership, registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty("zklock.endpoint.revocation-enabled")
	ZkLeadersRevocationWebExtension zkLeadersRevocationWebExtension(ZkLeadership leadership, ZkLockRegistry registry) {
		return new ZkLeadersRevocationWebExtension(leadership, registry);
	}

}
