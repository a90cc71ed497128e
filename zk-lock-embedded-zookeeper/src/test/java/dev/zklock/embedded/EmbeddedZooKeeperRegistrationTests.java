package dev.zklock.embedded;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that Spring Boot finds this module's auto-configuration, failure analyzer and
 * environment post-processor where it looks for them.
 */
@Timeout(30)
class EmbeddedZooKeeperRegistrationTests {

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void autoConfigurationIsListedAndRunsBeforeZkLocks() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, this.classLoader).getCandidates())
			.contains(EmbeddedZooKeeperAutoConfiguration.class.getName());
		// So that its connection details are there when zk-lock's own back off from them
		assertThat(EmbeddedZooKeeperAutoConfiguration.class.getAnnotation(AutoConfiguration.class).before())
			.containsExactly(ZkLockAutoConfiguration.class);
	}

	@Test
	void failureAnalyzerAndEnvironmentPostProcessorAreInSpringFactories() {
		// Those of other modules that need constructor arguments are skipped, not failed
		// on
		SpringFactoriesLoader.FailureHandler ignore = SpringFactoriesLoader.FailureHandler
			.handleMessage((message, ex) -> {
			});
		SpringFactoriesLoader loader = SpringFactoriesLoader.forDefaultResourceLocation(this.classLoader);
		List<FailureAnalyzer> analyzers = loader.load(FailureAnalyzer.class, null, ignore);
		assertThat(analyzers).extracting((analyzer) -> analyzer.getClass().getName())
			.contains(EmbeddedZooKeeperPortInUseFailureAnalyzer.class.getName());
		List<EnvironmentPostProcessor> postProcessors = loader.load(EnvironmentPostProcessor.class, null, ignore);
		assertThat(postProcessors).extracting((postProcessor) -> postProcessor.getClass().getName())
			.contains(EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor.class.getName());
	}

}
