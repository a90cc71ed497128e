package dev.zklock.autoconfigure.embedded;

import java.util.List;

/**
 * Thrown when {@code zklock.embedded.enabled} is {@code true} but libraries that ZooKeeper's
 * server needs, and declares 'provided', are not on the classpath.
 *
 * @author zk-lock
 */
public class EmbeddedZooKeeperDependenciesMissingException extends IllegalStateException {

	private final List<String> missingArtifacts;

	EmbeddedZooKeeperDependenciesMissingException(List<String> missingArtifacts) {
		super("zklock.embedded.enabled is true, but the embedded ZooKeeper server needs "
				+ String.join(" and ", missingArtifacts) + " on the classpath (ZooKeeper declares "
				+ ((missingArtifacts.size() == 1) ? "it" : "them") + " 'provided'); add "
				+ ((missingArtifacts.size() == 1) ? "it as a dependency" : "them as dependencies"));
		this.missingArtifacts = List.copyOf(missingArtifacts);
	}

	/**
	 * Return the missing libraries.
	 * @return their {@code groupId:artifactId} coordinates
	 */
	public List<String> getMissingArtifacts() {
		return this.missingArtifacts;
	}

}
