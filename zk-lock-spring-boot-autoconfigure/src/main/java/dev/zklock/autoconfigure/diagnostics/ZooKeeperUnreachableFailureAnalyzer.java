package dev.zklock.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link ZooKeeperUnreachableException} in Spring Boot's "APPLICATION FAILED TO
 * START" form: the connect string and what was tried, then what to check or change.
 */
final class ZooKeeperUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<ZooKeeperUnreachableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ZooKeeperUnreachableException cause) {
		return new FailureAnalysis(description(cause), action(cause), cause);
	}

	private static String description(ZooKeeperUnreachableException cause) {
		StringBuilder description = new StringBuilder();
		description.append("ZooKeeper at '")
			.append(cause.getConnectString())
			.append("' could not be reached, and zklock.fail-fast is true: tried for ")
			.append(cause.getInitialConnectWait().toMillis())
			.append(" ms (zklock.initial-connect-wait) without getting a connection.\n\n");
		description.append("Client settings:\n");
		description.append("\tTLS: ").append(cause.isTlsEnabled() ? "on" : "off").append(" (zklock.tls.enabled)\n");
		description.append("\tconnection timeout: ")
			.append(cause.getConnectionTimeout().toMillis())
			.append(" ms (zklock.connection-timeout)\n");
		description.append("\tsession timeout: ")
			.append(cause.getSessionTimeout().toMillis())
			.append(" ms (zklock.session-timeout)\n");
		// Whether it is configured, never the credentials
		description.append("\tdigest authentication: ")
			.append(cause.isAuthEnabled() ? "configured" : "none")
			.append(" (zklock.auth.username)\n");
		description.append("\tnamespace: ")
			.append((cause.getNamespace() != null) ? cause.getNamespace() : "none")
			.append(" (zklock.namespace)");
		if (cause.getClientState() != null) {
			description.append("\nZooKeeper client state when startup gave up: ").append(cause.getClientState());
		}
		if (!cause.getUnresolvedHosts().isEmpty()) {
			description.append("\nHost names that did not resolve to an address: ")
				.append(String.join(", ", cause.getUnresolvedHosts()));
		}
		return description.toString();
	}

	private static String action(ZooKeeperUnreachableException cause) {
		StringBuilder action = new StringBuilder("Consider the following:\n");
		if (!cause.getUnresolvedHosts().isEmpty()) {
			action.append("\tCorrect the host names ")
				.append(String.join(", ", cause.getUnresolvedHosts()))
				.append(" in zklock.connect-string: they do not resolve from here.\n");
		}
		action.append("\tCheck that ZooKeeper is running and reachable from here at ")
			.append(cause.getConnectString())
			.append(" (host, port, firewalls, container networking), or correct zklock.connect-string.\n");
		if (cause.isTlsEnabled()) {
			// A TLS client on the plain port (or the reverse) looks like an unreachable
			// server
			action.append("\tTLS is on: the port must be ZooKeeper's secure client port (secureClientPort), not its "
					+ "plain clientPort, and zklock.tls.trust-store must trust the server's certificate.\n");
		}
		else {
			action.append("\tIf the server accepts only TLS connections, set zklock.tls.enabled=true and "
					+ "zklock.tls.trust-store.\n");
		}
		action.append("\tIf ZooKeeper is only slow to come up, raise zklock.initial-connect-wait.\n");
		action.append("\tTo start without ZooKeeper, set zklock.fail-fast=false: the application starts, locks fail "
				+ "until ZooKeeper can be reached, and health reports DOWN.");
		return action.toString();
	}

}
