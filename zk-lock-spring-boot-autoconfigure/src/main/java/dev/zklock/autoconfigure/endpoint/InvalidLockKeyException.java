package dev.zklock.autoconfigure.endpoint;

import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * A key given to the {@code zklocks} endpoint that cannot be a lock key. Spring Boot
 * answers an {@link InvalidEndpointRequestException} with {@code 400 Bad Request};
 * {@link InvalidLockKeyProblemResolver} makes it an RFC 9457 problem naming the rule the
 * key broke. Nothing was read or written in ZooKeeper.
 *
 * @author zk-lock
 */
public class InvalidLockKeyException extends InvalidEndpointRequestException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param rule why the key cannot be a lock key, as
	 * {@link dev.zklock.core.LockPaths#validateKey} says it; its control characters are
	 * escaped
	 */
	public InvalidLockKeyException(String rule) {
		super(escape(rule), escape(rule));
	}

	/**
	 * Check a key given to the endpoint, before anything is read or written.
	 * @param registry the registry whose root path the key is under
	 * @param key the key
	 * @return the key's lock path
	 * @throws InvalidLockKeyException naming the rule the key broke
	 */
	static String lockPath(ZkLockRegistry registry, String key) {
		try {
			return registry.lockPath(key);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockKeyException(String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * Escape the control characters of a text ({@code \n} as {@code \u000A}), so that a
	 * response or a log line shows them rather than breaks on them.
	 * @param text the text
	 * @return the text, control characters escaped
	 */
	static String escape(String text) {
		StringBuilder escaped = new StringBuilder(text.length());
		text.codePoints().forEach((c) -> {
			if (Character.isISOControl(c)) {
				escaped.append(String.format("\\u%04X", c));
			}
			else {
				escaped.appendCodePoint(c);
			}
		});
		return escaped.toString();
	}

}
