package dev.zklock.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.leadership.ZkLeadershipAutoConfiguration;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for zk-lock's Micrometer gauges and counters. Without Micrometer on
 * the classpath nothing is bound; without a {@code MeterRegistry} bean the binder is
 * never bound and records nothing. A {@link MeterFilter} describes the timers made from
 * the {@code zklock.acquire} and {@code zklock.held} observations. With a
 * {@link ZkLeadership}, its groups are measured too ({@link ZkLeadershipMeterBinder}).
 *
 * @author zk-lock
 */
@AutoConfiguration(after = { ZkLockAutoConfiguration.class, ZkLeadershipAutoConfiguration.class })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(ZkLockRegistry.class)
public final class ZkLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ZkLockMeterBinder zkLockMeterBinder(ZkLockRegistry registry) {
		return new ZkLockMeterBinder(registry);
	}

	@Bean
	MeterFilter zkLockObservationMeterDescriptions() {
		return new ZkLockObservationMeterDescriptions();
	}

	/**
	 * Leadership meters, when there is a {@link ZkLeadership}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(ZkLeadership.class)
	static final class LeadershipMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ZkLeadershipMeterBinder zkLeadershipMeterBinder(ZkLeadership leadership) {
			return new ZkLeadershipMeterBinder(leadership);
		}

	}

}
