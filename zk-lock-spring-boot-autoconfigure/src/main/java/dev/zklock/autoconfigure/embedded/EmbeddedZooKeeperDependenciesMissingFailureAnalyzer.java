package dev.zklock.autoconfigure.embedded;

import java.util.List;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link EmbeddedZooKeeperDependenciesMissingException} in Spring Boot's "APPLICATION
 * FAILED TO START" form: which libraries to add.
 */
final class EmbeddedZooKeeperDependenciesMissingFailureAnalyzer
		extends AbstractFailureAnalyzer<EmbeddedZooKeeperDependenciesMissingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedZooKeeperDependenciesMissingException cause) {
		List<String> missing = cause.getMissingArtifacts();
		String artifacts = String.join(" and ", missing);
		boolean one = (missing.size() == 1);
		String description = "The embedded ZooKeeper server (zklock.embedded.enabled=true) needs " + artifacts
				+ " on the classpath, and " + (one ? "it is" : "they are") + " missing: ZooKeeper declares "
				+ (one ? "it" : "them") + " 'provided'.";
		String action = "Add " + artifacts + " to the application's dependencies (test scope is enough when only "
				+ "tests use the embedded server), or set zklock.embedded.enabled=false and point "
				+ "zklock.connect-string at a ZooKeeper server.";
		return new FailureAnalysis(description, action, cause);
	}

}
