package dev.zklock.autoconfigure.web;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.zklock.core.LockAcquisitionException;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@link ZkLockProblemDetailsAutoConfiguration} applies and when it backs off.
 */
@Timeout(60)
class ZkLockProblemDetailsAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations
		.of(ZkLockProblemDetailsAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS);

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS);

	@Test
	void servletApplicationGetsTheResolverWithTheLowestPrecedence() {
		this.servlet.run((context) -> {
			assertThat(context).hasSingleBean(LockAcquisitionProblemResolver.class)
				.doesNotHaveBean(LockAcquisitionProblemWebExceptionHandler.class);
			assertThat(context.getBean(LockAcquisitionProblemResolver.class).getOrder())
				.isEqualTo(Ordered.LOWEST_PRECEDENCE);
		});
	}

	@Test
	void reactiveApplicationGetsTheWebExceptionHandlerBeforeBootsErrorHandler() {
		this.reactive.run((context) -> {
			assertThat(context).hasSingleBean(LockAcquisitionProblemWebExceptionHandler.class)
				.doesNotHaveBean(LockAcquisitionProblemResolver.class);
			assertThat(context.getBean(LockAcquisitionProblemWebExceptionHandler.class).getOrder()).isEqualTo(-2);
		});
	}

	@Test
	void nonWebApplicationGetsNeither() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).doesNotHaveBean(LockAcquisitionProblemResolver.class)
				.doesNotHaveBean(LockAcquisitionProblemWebExceptionHandler.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.servlet.withPropertyValues("zklock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockAcquisitionProblemResolver.class));
		this.reactive.withPropertyValues("zklock.web.problem-details.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockAcquisitionProblemWebExceptionHandler.class));
	}

	@Test
	void backsOffWithoutSpringMvcOrWebFluxOnTheClassPath() {
		this.servlet.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockAcquisitionProblemResolver.class));
		this.reactive.withClassLoader(new FilteredClassLoader(WebExceptionHandler.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockAcquisitionProblemWebExceptionHandler.class));
		this.servlet.withClassLoader(new FilteredClassLoader(LockAcquisitionException.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockAcquisitionProblemResolver.class));
	}

	@Test
	void backsOffForTheApplicationsOwnBeans() {
		this.servlet.withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(LockAcquisitionProblemResolver.class);
			assertThat(context.getBean(LockAcquisitionProblemResolver.class)).isSameAs(context.getBean("ownResolver"));
		});
		this.reactive.withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(LockAcquisitionProblemWebExceptionHandler.class);
			assertThat(context.getBean(LockAcquisitionProblemWebExceptionHandler.class))
				.isSameAs(context.getBean("ownHandler"));
		});
	}

	@Test
	void negativeRetryAfterFailsStartupNamingTheProperty() {
		this.servlet.withPropertyValues("zklock.web.problem-details.retry-after=-1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("zklock.web.problem-details.retry-after"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		@Bean
		LockAcquisitionProblemResolver ownResolver() {
			return new LockAcquisitionProblemResolver(true, Duration.ZERO, List::of);
		}

		@Bean
		LockAcquisitionProblemWebExceptionHandler ownHandler() {
			return new LockAcquisitionProblemWebExceptionHandler(true, Duration.ZERO, List.of());
		}

	}

}
