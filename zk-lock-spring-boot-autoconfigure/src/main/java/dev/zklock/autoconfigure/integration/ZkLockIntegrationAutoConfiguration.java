package dev.zklock.autoconfigure.integration;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.integration.ZkLockIntegrationLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a Spring Integration {@link LockRegistry} backed by zk-lock,
 * when Spring Integration is on the class path and the application declares no
 * {@code LockRegistry} of its own. Switched off by
 * {@code zklock.integration.enabled=false}.
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(ZkLockRegistry.class)
@ConditionalOnBooleanProperty(name = "zklock.integration.enabled", matchIfMissing = true)
public final class ZkLockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	ZkLockIntegrationLockRegistry zkLockIntegrationLockRegistry(ZkLockRegistry registry) {
		return new ZkLockIntegrationLockRegistry(registry);
	}

}
