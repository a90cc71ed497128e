package dev.zklock.autoconfigure.view;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.view.ViewOptions;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the cluster view, with {@code zklock.view.enabled=true}: the
 * view's options from {@code zklock.view.*}, and this instance's report
 * ({@link ZkLockViewReports}), published whether or not this instance serves the
 * {@code zkcluster} endpoint, so that every instance's view shows its threads, hold times
 * and lease states.
 *
 * @author zk-lock
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnBean(ZkLockRegistry.class)
@ConditionalOnBooleanProperty("zklock.view.enabled")
public final class ZkLockViewAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ViewOptions zkLockViewOptions(ZkLockProperties properties) {
		ZkLockProperties.View view = properties.getView();
		ViewOptions defaults = ViewOptions.defaults();
		return new ViewOptions(view.getInstancesPath(), properties.getLeadership().getRootPath(), view.getMaxKeys(),
				defaults.maxNodesPerKey(), view.getReportInterval(), view.getHeartbeat());
	}

	@Bean
	@ConditionalOnMissingBean
	ZkLockViewReports zkLockViewReports(ZkLockRegistry registry, ViewOptions options) {
		return new ZkLockViewReports(registry, options);
	}

}
