package dev.zklock.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link EmbeddedZooKeeperModuleMissingException} in Spring Boot's
 * "APPLICATION FAILED TO START" form: the module to add, or how to use a ZooKeeper server
 * instead.
 */
final class EmbeddedZooKeeperModuleMissingFailureAnalyzer
		extends AbstractFailureAnalyzer<EmbeddedZooKeeperModuleMissingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedZooKeeperModuleMissingException cause) {
		String module = cause.getModule();
		String description = "zklock.embedded.enabled is true, but the embedded ZooKeeper server is not on the "
				+ "classpath. It is in its own module, " + module + ", which zk-lock's starter does not bring.";
		String action = "Consider the following:\n" + "\tAdd " + module
				+ " to the application's dependencies, at the version of zk-lock's starter "
				+ "(test scope when only tests use the embedded server).\n"
				+ "\tTo use a ZooKeeper server instead, set zklock.embedded.enabled=false and point "
				+ "zklock.connect-string at it.";
		return new FailureAnalysis(description, action, cause);
	}

}
