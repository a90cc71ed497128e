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
		return rootPath.equals("/") ? "/" + key : rootPath + "/" + key;
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
	 * Check a root path: absolute, no trailing slash (but for {@code /}), no empty or
	 * relative segments.
	 * @param rootPath the root path
	 * @throws IllegalArgumentException naming the root path and what is wrong with it
	 */
	public static void validateRootPath(String rootPath) {
		if (!rootPath.startsWith("/")) {
			throw new IllegalArgumentException(
					"Lock root path must be absolute (start with '/'), but was '" + rootPath + "'");
		}
		if (rootPath.equals("/")) {
			return;
		}
		if (rootPath.endsWith("/")) {
			throw new IllegalArgumentException("Lock root path must not end with '/', but was '" + rootPath + "'");
		}
		for (String segment : rootPath.substring(1).split("/", -1)) {
			if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
				throw new IllegalArgumentException(
						"Lock root path must not contain empty, '.' or '..' segments, but was '" + rootPath + "'");
			}
			try {
				validateKey(segment);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("Lock root path '" + printable(rootPath)
						+ "' is not a valid ZooKeeper path: " + ex.getMessage(), ex);
			}
		}
	}

	private static String printable(String s) {
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
