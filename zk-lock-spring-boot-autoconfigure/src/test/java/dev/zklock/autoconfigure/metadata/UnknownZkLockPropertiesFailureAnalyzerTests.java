package dev.zklock.autoconfigure.metadata;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests for {@link UnknownZkLockPropertiesFailureAnalyzer}: the report Spring Boot prints
 * when an application starts with {@code zklock.*} keys that no module declares, from its
 * configuration files, its command line and its environment variables.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class UnknownZkLockPropertiesFailureAnalyzerTests {

	@Test
	void reportNamesEveryKeyWithItsOriginAndTheNearestProperty(CapturedOutput output) {
		FailureAnalysis analysis = startFailure(Map.of("ZKLOCK_LOCK_DEFAULT_WIAT", "5s"),
				"--spring.config.location=classpath:unknownkeys/typos.properties", "--zklock.namespce=shop");
		assertThat(analysis.getDescription()).isEqualTo("""
				4 properties under zklock are not known to zk-lock, which would ignore them and use its defaults:

				    Property: zklock.namespce
				    Origin: command-line argument
				    Did you mean: zklock.namespace

				    Property: ZKLOCK_LOCK_DEFAULT_WIAT
				    Origin: environment variable
				    Did you mean: zklock.lock.default-wait (ZKLOCK_LOCK_DEFAULTWAIT)

				    Property: zklock.conect-string
				    Origin: class path resource [unknownkeys/typos.properties], line 2
				    Did you mean: zklock.connect-string

				    Property: zklock.lock.default-wiat
				    Origin: class path resource [unknownkeys/typos.properties], line 4
				    Did you mean: zklock.lock.default-wait""");
		assertThat(analysis.getAction()).isEqualTo("""
				Consider the following:
				\tCorrect the property names. zk-lock's properties are listed in its docs/configuration-properties.md \
				and in its modules' configuration metadata, which IDEs complete from.
				\tIf a property belongs to a zk-lock module that is not on the classpath, add the module.
				\tIf the properties are not meant for zk-lock, move them out of zklock.*, or set \
				zklock.fail-on-unknown-properties=false to start with them ignored (zk-lock then lists them in one \
				warning).""");
		// Spring Boot found the analyzer through spring.factories and printed the report,
		// not a trace
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Origin: class path resource [unknownkeys/typos.properties], line 2")
			.contains("Did you mean: zklock.lock.default-wait (ZKLOCK_LOCK_DEFAULTWAIT)")
			.doesNotContain("\tat dev.zklock.autoconfigure");
	}

	@Test
	void yamlKeysAreReportedWithTheirLines() {
		FailureAnalysis analysis = startFailure(Map.of(), "--spring.config.location=classpath:unknownkeys/typos.yml");
		assertThat(analysis.getDescription()).isEqualTo("""
				2 properties under zklock are not known to zk-lock, which would ignore them and use its defaults:

				    Property: zklock.conect-string
				    Origin: class path resource [unknownkeys/typos.yml], line 2
				    Did you mean: zklock.connect-string

				    Property: zklock.lock.default-wiat
				    Origin: class path resource [unknownkeys/typos.yml], line 4
				    Did you mean: zklock.lock.default-wait""");
	}

	@Test
	void oneKeyWithoutANearProperty() {
		FailureAnalysis analysis = startFailure(Map.of(), "--zklock.frobnicate=yes");
		assertThat(analysis.getDescription()).isEqualTo("""
				A property under zklock is not known to zk-lock, which would ignore it and use its defaults:

				    Property: zklock.frobnicate
				    Origin: command-line argument""");
	}

	/**
	 * Run an application with the given environment variables in place of the process's,
	 * and analyze its failure.
	 */
	private static FailureAnalysis startFailure(Map<String, Object> variables, String... args) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
		SpringApplicationBuilder application = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.registerShutdownHook(false)
			.environment(environment);
		Throwable failure = catchThrowable(() -> application.run(args));
		assertThat(failure).isInstanceOf(UnknownZkLockPropertiesException.class);
		FailureAnalysis analysis = new UnknownZkLockPropertiesFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of %s", failure).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class App {

	}

}
