package dev.zklock.autoconfigure.endpoint;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * A request of the {@code zkcluster} endpoint that the view refuses: a prefix no key can
 * start with, a key to page after that cannot be a key, a limit out of range, or a root
 * path with more keys than the view lists. Answered with {@code 400 Bad Request}
 * ({@link InvalidLockKeyProblemResolver} makes it an RFC 9457 problem). Nothing was
 * listed.
 *
 * @author zk-lock
 */
public class InvalidViewRequestException extends InvalidEndpointRequestException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param reason what is wrong, naming the value; its control characters are escaped
	 */
	public InvalidViewRequestException(String reason) {
		super(InvalidLockKeyException.escape(reason), InvalidLockKeyException.escape(reason));
	}

}
