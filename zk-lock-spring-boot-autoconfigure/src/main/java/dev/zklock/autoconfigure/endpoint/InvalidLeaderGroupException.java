package dev.zklock.autoconfigure.endpoint;

import dev.zklock.core.leader.LeaderGroup;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * A group name given to the {@code zkleaders} endpoint that cannot be a leader group's
 * name. Spring Boot answers an {@link InvalidEndpointRequestException} with
 * {@code 400 Bad Request}; {@link InvalidLockKeyProblemResolver} makes it an RFC 9457
 * problem naming the rule the name broke. Nothing was read or written in ZooKeeper.
 *
 * @author zk-lock
 */
public class InvalidLeaderGroupException extends InvalidEndpointRequestException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param rule why the name cannot be a group name, as
	 * {@link dev.zklock.core.leader.LeaderGroup#validateName} says it; its control
	 * characters are escaped
	 */
	public InvalidLeaderGroupException(String rule) {
		super(InvalidLockKeyException.escape(rule), InvalidLockKeyException.escape(rule));
	}

	/**
	 * Check a group name given to the endpoint, before anything is read or written.
	 * @param group the name
	 * @throws InvalidLeaderGroupException naming the rule the name broke
	 */
	static void validate(String group) {
		try {
			LeaderGroup.validateName(group);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLeaderGroupException(String.valueOf(ex.getMessage()));
		}
	}

}
