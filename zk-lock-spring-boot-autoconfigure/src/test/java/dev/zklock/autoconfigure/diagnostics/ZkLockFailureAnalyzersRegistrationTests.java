package dev.zklock.autoconfigure.diagnostics;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that Spring Boot finds zk-lock's failure analyzers where it looks for them.
 */
@Timeout(30)
class ZkLockFailureAnalyzersRegistrationTests {

	@Test
	void everyAnalyzerIsRegisteredInSpringFactories() {
		// Analyzers of other modules that need constructor arguments are skipped, not
		// failed on
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
			.load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
			}));
		assertThat(analyzers).extracting((analyzer) -> analyzer.getClass().getName())
			.contains("dev.zklock.autoconfigure.diagnostics.InvalidLockDeclarationFailureAnalyzer",
					"dev.zklock.autoconfigure.diagnostics.SelfInvocationFailureAnalyzer",
					"dev.zklock.autoconfigure.diagnostics.ZooKeeperUnreachableFailureAnalyzer",
					"dev.zklock.autoconfigure.diagnostics.EmbeddedZooKeeperModuleMissingFailureAnalyzer",
					"dev.zklock.autoconfigure.metadata.UnknownZkLockPropertiesFailureAnalyzer");
	}

}
