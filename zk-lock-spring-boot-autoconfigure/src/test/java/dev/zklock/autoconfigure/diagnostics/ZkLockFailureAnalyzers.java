package dev.zklock.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * zk-lock's failure analyzers, package-private in their package, for tests elsewhere that
 * check the report of a startup failure.
 */
public final class ZkLockFailureAnalyzers {

	private ZkLockFailureAnalyzers() {
	}

	public static FailureAnalyzer invalidLockDeclaration() {
		return new InvalidLockDeclarationFailureAnalyzer();
	}

	public static FailureAnalyzer zooKeeperUnreachable() {
		return new ZooKeeperUnreachableFailureAnalyzer();
	}

}
