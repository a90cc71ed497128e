package dev.zklock.core;

import org.jspecify.annotations.Nullable;

/**
 * Maps lock keys to ZooKeeper paths. A key becomes exactly one path segment under the
 * root path, unchanged, so that a plain Curator {@code InterProcessMutex} on
 * {@code <rootPath>/<key>} meets the same lock. Keys that cannot be one segment are
 * rejected, never rewritten: a rewritten key would silently meet, or miss, another key.
 *
 * @author zk-lock
 */
public final class LockPaths {

	/**
	 * The longest key accepted, in characters.
	 */
	public static final int MAX_KEY_LENGTH = 1024;

	private LockPaths() {
	}

	/**
	 * Check a key and return the path of its lock.
	 * @param rootPath the validated root path
	 * @param key the key
	 * @return {@code rootPath + "/" + key}
	 * @throws IllegalArgumentException naming the key and what is wrong with it
	 */
	public static String lockPath(String rootPath, String key) {
		validateKey(key);
		return rootPath + "/" + key;
	}

	/**
	 * Check that a key can be one ZooKeeper path segment.
	 * @param key the key
	 * @throws IllegalArgumentException naming the key and what is wrong with it
	 */
	public static void validateKey(@Nullable String key) {
		if (key == null) {
			throw new IllegalArgumentException("Lock key must not be null");
		}
		if (key.isBlank()) {
			throw new IllegalArgumentException("Lock key must not be empty or blank, but was '" + key + "'");
		}
		if (key.length() > MAX_KEY_LENGTH) {
			throw new IllegalArgumentException("Lock key must be at most " + MAX_KEY_LENGTH + " characters, but was "
					+ key.length() + " characters starting '" + key.substring(0, 32) + "...'");
		}
		if (key.equals(".") || key.equals("..")) {
			throw new IllegalArgumentException(
					"Lock key must not be '" + key + "': ZooKeeper does not allow relative path segments");
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '/') {
				throw new IllegalArgumentException("Lock key '" + key + "' contains '/' at index " + i
						+ ": a key is one ZooKeeper path segment; use another separator such as ':'");
			}
			if (Character.isISOControl(c)) {
				throw new IllegalArgumentException("Lock key '" + printable(key) + "' contains control character U+"
						+ String.format("%04X", (int) c) + " at index " + i);
			}
			if ((c >= '\ud800' && c <= '\uf8ff') || c >= '\ufff0') {
				throw new IllegalArgumentException("Lock key '" + printable(key) + "' contains character U+"
						+ String.format("%04X", (int) c) + " at index " + i
						+ ", which ZooKeeper paths cannot hold (surrogates, private use and specials, such as emoji)");
			}
		}
	}

	/**
	 * ZooKeeper's own tree: its configuration and quotas live there, and no lock may.
	 */
	public static final String RESERVED_PATH = "/zookeeper";

	/**
	 * Check a root path: a valid ZooKeeper path ({@link #validatePath}), not {@code /}
	 * (at the root a key such as {@code zookeeper} would name ZooKeeper's own tree), and
	 * not ZooKeeper's reserved tree {@value #RESERVED_PATH} or a path inside it.
	 * @param rootPath the root path
	 * @throws IllegalArgumentException naming the root path and what is wrong with it
	 */
	public static void validateRootPath(String rootPath) {
		validatePath("Lock root path", rootPath);
		if (rootPath.equals("/")) {
			throw new IllegalArgumentException("Lock root path must not be '/': the locks need a node of their own, "
					+ "such as '/locks' (at the root, a key such as 'zookeeper' would be ZooKeeper's own tree)");
		}
		if (isReserved(rootPath)) {
			throw new IllegalArgumentException("Lock root path must not be ZooKeeper's reserved tree " + RESERVED_PATH
					+ " or inside it, but was '" + printable(rootPath) + "'");
		}
	}

	/**
	 * Check a ZooKeeper path: absolute, no trailing slash (but for {@code /}), no empty,
	 * {@code .} or {@code ..} segments, and no character ZooKeeper refuses (each segment
	 * as a key, {@link #validateKey}).
	 * @param what what the path is, to start the message: "Lock root path"
	 * @param path the path
	 * @throws IllegalArgumentException naming the path, control characters escaped, and
	 * what is wrong with it
	 */
	public static void validatePath(String what, String path) {
		if (!path.startsWith("/")) {
			throw new IllegalArgumentException(
					what + " must be absolute (start with '/'), but was '" + printable(path) + "'");
		}
		if (path.equals("/")) {
			return;
		}
		if (path.endsWith("/")) {
			throw new IllegalArgumentException(what + " must not end with '/', but was '" + printable(path) + "'");
		}
		for (String segment : path.substring(1).split("/", -1)) {
			if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
				throw new IllegalArgumentException(
						what + " must not contain empty, '.' or '..' segments, but was '" + printable(path) + "'");
			}
			try {
				validateKey(segment);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						what + " '" + printable(path) + "' is not a valid ZooKeeper path: " + ex.getMessage(), ex);
			}
		}
	}

	/**
	 * Whether a path is ZooKeeper's reserved tree {@value #RESERVED_PATH} or inside it.
	 * @param path an absolute path
	 * @return whether it is reserved
	 */
	public static boolean isReserved(String path) {
		return path.equals(RESERVED_PATH) || path.startsWith(RESERVED_PATH + "/");
	}

	/**
	 * Text for a message: control characters escaped as Java Unicode escapes, as keys are
	 * in the messages of {@link #validateKey}.
	 * @param s the text
	 * @return the text, printable
	 */
	public static String printable(String s) {
		StringBuilder sb = new StringBuilder();
		s.chars().forEach((c) -> {
			if (Character.isISOControl(c)) {
				sb.append(String.format("\\u%04X", c));
			}
			else {
				sb.append((char) c);
			}
		});
		return sb.toString();
	}

}
