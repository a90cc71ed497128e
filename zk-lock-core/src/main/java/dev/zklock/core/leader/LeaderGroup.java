package dev.zklock.core.leader;

import java.util.Objects;

import dev.zklock.core.LockPaths;

/**
 * A leadership group: a name and the root path under which its node lives.
 *
 * @param name the group's name, one ZooKeeper path segment, as a lock key
 * @param rootPath the path under which groups live, {@value #DEFAULT_ROOT_PATH} by
 * default: apart from the lock keys, so that a group and a lock key of the same name
 * never meet
 * @author zk-lock
 */
public record LeaderGroup(String name, String rootPath) {

	/**
	 * The path under which groups live unless told otherwise.
	 */
	public static final String DEFAULT_ROOT_PATH = "/leaders";

	/**
	 * Check the name and the root path.
	 * @param name the name
	 * @param rootPath the root path
	 * @throws IllegalArgumentException naming the value and what is wrong with it
	 */
	public LeaderGroup {
		Objects.requireNonNull(rootPath, "Leader group root path must not be null");
		validateName(name);
		LockPaths.validateRootPath(rootPath);
	}

	/**
	 * A group under {@value #DEFAULT_ROOT_PATH}.
	 * @param name the name
	 * @return the group
	 * @throws IllegalArgumentException if the name cannot be a group name
	 */
	public static LeaderGroup named(String name) {
		return new LeaderGroup(name, DEFAULT_ROOT_PATH);
	}

	/**
	 * The same name under another root path.
	 * @param rootPath the root path
	 * @return the group
	 */
	public LeaderGroup under(String rootPath) {
		return new LeaderGroup(this.name, rootPath);
	}

	/**
	 * Return the group's ZooKeeper path, relative to the client's namespace, as a Curator
	 * {@code LeaderSelector} would be given it.
	 * @return {@code rootPath + "/" + name}
	 */
	public String path() {
		return this.rootPath + "/" + this.name;
	}

	/**
	 * Check that a name can be a group name: the rules of a lock key, in words about a
	 * group.
	 * @param name the name
	 * @throws IllegalArgumentException naming the name and what is wrong with it
	 */
	public static void validateName(String name) {
		try {
			LockPaths.validateKey(name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(String.valueOf(ex.getMessage()).replace("Lock key", "Leader group name"),
					ex);
		}
	}

}
