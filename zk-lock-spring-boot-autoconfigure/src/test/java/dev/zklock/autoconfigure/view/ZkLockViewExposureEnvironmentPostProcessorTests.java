package dev.zklock.autoconfigure.view;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code zklock.view.enabled=true} is the one property that exposes the page: it adds
 * {@code zkcluster} to what the application exposes, and nothing else.
 */
class ZkLockViewExposureEnvironmentPostProcessorTests {

	private static final String INCLUDE = "management.endpoints.web.exposure.include";

	private final ZkLockViewExposureEnvironmentPostProcessor processor = new ZkLockViewExposureEnvironmentPostProcessor();

	@Test
	void addsTheEndpointToBootsDefaultExposure() {
		MockEnvironment environment = new MockEnvironment().withProperty("zklock.view.enabled", "true");
		this.processor.postProcessEnvironment(environment, new SpringApplication());
		assertThat(environment.getProperty(INCLUDE)).isEqualTo("health,zkcluster");
	}

	@Test
	void keepsWhatTheApplicationExposes() {
		MockEnvironment environment = new MockEnvironment().withProperty("zklock.view.enabled", "true")
			.withProperty(INCLUDE, "health, info,prometheus");
		this.processor.postProcessEnvironment(environment, new SpringApplication());
		assertThat(environment.getProperty(INCLUDE)).isEqualTo("health,info,prometheus,zkcluster");
	}

	@Test
	void keepsAnIndexedInclude() {
		MockEnvironment environment = new MockEnvironment().withProperty("zklock.view.enabled", "true")
			.withProperty(INCLUDE + "[0]", "health")
			.withProperty(INCLUDE + "[1]", "zklocks");
		this.processor.postProcessEnvironment(environment, new SpringApplication());
		assertThat(environment.getProperty(INCLUDE)).isEqualTo("health,zklocks,zkcluster");
	}

	@Test
	void leavesAWildcardAndAnExplicitIncludeAlone() {
		MockEnvironment all = new MockEnvironment().withProperty("zklock.view.enabled", "true")
			.withProperty(INCLUDE, "*");
		this.processor.postProcessEnvironment(all, new SpringApplication());
		assertThat(all.getPropertySources().contains(ZkLockViewExposureEnvironmentPostProcessor.PROPERTY_SOURCE_NAME))
			.isFalse();
	}

	@Test
	void changesNothingWhenTheViewIsOff() {
		MockEnvironment environment = new MockEnvironment();
		this.processor.postProcessEnvironment(environment, new SpringApplication());
		assertThat(environment.getProperty(INCLUDE)).isNull();
	}

}
