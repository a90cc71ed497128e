package dev.zklock.autoconfigure.health;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.beans.factory.ObjectProvider;
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
 * so it sits beside Spring Cloud Zookeeper's. Its details show this instance's leader
 * groups when there is a {@link ZkLeadership}.
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
	ZkLockHealthIndicator zklockHealthIndicator(ZkLockRegistry registry, ObjectProvider<ZkLeadership> leadership) {
		return new ZkLockHealthIndicator(registry, leadership.getIfUnique());
	}

}
