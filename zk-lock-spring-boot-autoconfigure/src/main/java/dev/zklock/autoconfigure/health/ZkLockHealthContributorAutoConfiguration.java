package dev.zklock.autoconfigure.health;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.health.ZkLockHealthIndicator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code zklock} health contributor, switched by
 * {@code management.health.zklock.enabled}. Named {@code zklock}, not {@code zookeeper},
 * so it sits beside Spring Cloud Zookeeper's.
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ZkLockRegistry.class)
@ConditionalOnEnabledHealthIndicator("zklock")
public final class ZkLockHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "zklockHealthIndicator")
	ZkLockHealthIndicator zklockHealthIndicator(ZkLockRegistry registry) {
		return new ZkLockHealthIndicator(registry);
	}

}
