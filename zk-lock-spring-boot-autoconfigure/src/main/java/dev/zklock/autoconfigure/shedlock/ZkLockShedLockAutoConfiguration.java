package dev.zklock.autoconfigure.shedlock;

import net.javacrumbs.shedlock.core.LockProvider;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.shedlock.ZkLockShedLockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a ShedLock {@link LockProvider} backed by zk-lock, when ShedLock
 * is on the class path and the application declares no {@code LockProvider} of its own.
 * Switched off by {@code zklock.shedlock.enabled=false}.
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(ZkLockRegistry.class)
@ConditionalOnBooleanProperty(name = "zklock.shedlock.enabled", matchIfMissing = true)
public final class ZkLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	ZkLockShedLockProvider zkLockShedLockProvider(ZkLockRegistry registry) {
		return new ZkLockShedLockProvider(registry);
	}

}
