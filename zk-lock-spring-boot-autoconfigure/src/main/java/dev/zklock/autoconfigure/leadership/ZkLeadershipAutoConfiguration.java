package dev.zklock.autoconfigure.leadership;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for leader election: a {@link ZkLeadership} on the lock registry's
 * client, set from {@code zklock.leadership.*}, that joins the groups of
 * {@code zklock.leadership.groups} (and those the application's beans add) when the
 * application starts. Switched by {@code zklock.leadership.enabled}; backs off when the
 * application declares its own {@link ZkLeadership}.
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnBean(ZkLockRegistry.class)
@ConditionalOnBooleanProperty(name = "zklock.leadership.enabled", matchIfMissing = true)
public final class ZkLeadershipAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ZkLeadership zkLeadership(ZkLockRegistry registry, ZkLockProperties properties) {
		// The properties were checked when bound (ZkLockPropertiesValidator), so these
		// setters do not throw
		ZkLockProperties.Leadership leadership = properties.getLeadership();
		ZkLeadership bean = new ZkLeadership(registry);
		bean.setRootPath(leadership.getRootPath());
		bean.setOnSuspended(leadership.getOnSuspended());
		bean.setHandOffTimeout(leadership.getHandOffTimeout());
		leadership.getGroups().forEach(bean::addGroup);
		return bean;
	}

}
