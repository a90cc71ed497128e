package dev.zklock.core.view;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;

/**
 * Which keys one view lists: those starting with {@code prefix}, after {@code after}, at
 * most {@code limit} of them, in key order.
 *
 * @param prefix what the keys start with, empty for all
 * @param after the last key of the previous page, {@code null} for the first page
 * @param limit the most keys listed, 1 to {@value #MAX_LIMIT}
 * @author zk-lock
 */
public record ViewRequest(String prefix, @Nullable String after, int limit) {

	/**
	 * The most keys one page lists.
	 */
	public static final int MAX_LIMIT = 1000;

	/**
	 * The keys a page lists when nobody says.
	 */
	public static final int DEFAULT_LIMIT = 200;

	/**
	 * Check the request.
	 * @throws IllegalArgumentException naming the value and what is wrong with it: a
	 * prefix that no key can start with (too long, a {@code /}, a control character), a
	 * key after that cannot be a key, a limit out of range
	 */
	public ViewRequest {
		if (prefix.length() > LockPaths.MAX_KEY_LENGTH) {
			throw new IllegalArgumentException("Key prefix must be at most " + LockPaths.MAX_KEY_LENGTH
					+ " characters, as a key, but was " + prefix.length() + " characters starting '"
					+ LockPaths.printable(prefix.substring(0, 32)) + "...'");
		}
		if (!prefix.isEmpty() && !prefix.chars().allMatch((c) -> c == '.')) {
			try {
				LockPaths.validateKey(prefix);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"Key prefix '" + LockPaths.printable(prefix) + "' cannot start a lock key: " + ex.getMessage(),
						ex);
			}
		}
		if (after != null) {
			LockPaths.validateKey(after);
		}
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException("Page limit must be between 1 and " + MAX_LIMIT + ", but was " + limit);
		}
	}

	/**
	 * The first page of all keys, {@value #DEFAULT_LIMIT} of them.
	 * @return the request
	 */
	public static ViewRequest firstPage() {
		return new ViewRequest("", null, DEFAULT_LIMIT);
	}

}
