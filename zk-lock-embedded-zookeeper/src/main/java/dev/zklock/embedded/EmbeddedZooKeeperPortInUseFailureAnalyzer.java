package dev.zklock.embedded;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link EmbeddedZooKeeperPortInUseException} in Spring Boot's "APPLICATION
 * FAILED TO START" form: the port, and the ways out.
 */
final class EmbeddedZooKeeperPortInUseFailureAnalyzer
		extends AbstractFailureAnalyzer<EmbeddedZooKeeperPortInUseException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedZooKeeperPortInUseException cause) {
		int port = cause.getPort();
		String description = "The embedded ZooKeeper server (zklock.embedded.enabled=true) could not start: port "
				+ port + " (zklock.embedded.port) is already in use.";
		String action = "Consider the following:\n" + "\tStop the process that is listening on port " + port
				+ " (another ZooKeeper server, or another "
				+ "instance of this application with its own embedded ZooKeeper).\n"
				+ "\tChoose another port with zklock.embedded.port, or set zklock.embedded.port=0 to use a free one.\n"
				+ "\tTo use the ZooKeeper that already listens on port " + port + " instead, set "
				+ "zklock.embedded.enabled=false and zklock.connect-string=localhost:" + port + ".";
		return new FailureAnalysis(description, action, cause);
	}

}
