package dev.zklock.benchmarks;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A minimal Spring Boot context with zk-lock's auto-configuration and one annotated bean.
 */
final class BenchContext {

	private BenchContext() {
	}

	static ConfigurableApplicationContext start(String connectString) {
		return new SpringApplicationBuilder(Config.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.bannerMode(Banner.Mode.OFF)
			.properties("zklock.connect-string=" + connectString, "zklock.lock.default-wait=600s",
					"logging.level.root=warn")
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, AopAutoConfiguration.class })
	static class Config {

		@Bean
		AnnotatedCounter annotatedCounter() {
			return new AnnotatedCounter();
		}

	}

}
