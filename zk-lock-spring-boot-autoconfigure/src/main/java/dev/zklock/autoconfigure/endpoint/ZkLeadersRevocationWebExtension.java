package dev.zklock.autoconfigure.endpoint;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.RevocationRefusedException;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Adds {@code DELETE /actuator/zkleaders/{group}} to the {@link ZkLeadersEndpoint}: asks
 * a group's leader, in any instance, to hand over, by writing Curator's revocation
 * request into its node ({@link ZkLockRegistry#requestRevocation(LeaderGroup)}). A
 * zk-lock leader ends its term ({@code REVOKED}): its leader work drains, then the next
 * candidate in the queue leads, and it queues again. Only present with
 * {@code zklock.endpoint.revocation-enabled=true}, as the {@code zklocks} endpoint's
 * revocation: whoever may call it may move the application's leader work, so it needs the
 * access control of any write operation. Each request is logged with who asked. A request
 * for a group that nobody leads asks nobody and is answered {@code 404}, with the reason.
 *
 * @author zk-lock
 */
@EndpointWebExtension(endpoint = ZkLeadersEndpoint.class)
public class ZkLeadersRevocationWebExtension {

	private static final Logger logger = LoggerFactory.getLogger(ZkLeadersRevocationWebExtension.class);

	private final ZkLeadership leadership;

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param leadership this instance's leadership, whose root path the groups are under
	 * @param registry the lock registry that writes the request
	 */
	public ZkLeadersRevocationWebExtension(ZkLeadership leadership, ZkLockRegistry registry) {
		this.leadership = leadership;
		this.registry = registry;
	}

	/**
	 * Ask a group's leader to hand over.
	 * @param group the group's name
	 * @param securityContext who asks, for the log
	 * @return the node asked ({@code 200}), or why nobody was asked ({@code 404})
	 * @throws InvalidLeaderGroupException if the name cannot be a group name
	 * ({@code 400}); nothing is written
	 * @throws Exception if ZooKeeper could not be written within the connection timeout
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> revoke(@Selector String group, SecurityContext securityContext)
			throws Exception {
		InvalidLeaderGroupException.validate(group);
		LeaderGroup leaderGroup = this.leadership.leaderGroup(group);
		String who = KeyRevocation.who(securityContext);
		try {
			List<String> asked = this.registry.requestRevocation(leaderGroup);
			// Moving the leader is a write on every instance's behalf: say who did it
			logger.info("Leader of group '{}' ({}) asked to hand over, requested by {}: {}", group, leaderGroup.path(),
					who, asked);
			return new WebEndpointResponse<>(new Revocation(group, leaderGroup.path(), asked));
		}
		catch (RevocationRefusedException ex) {
			logger.info("Hand-over of leader group '{}' ({}) requested by {} asked nobody: {}", group,
					leaderGroup.path(), who, ex.getReason());
			int status = (ex.getReason() == RevocationRefusedException.Reason.NOT_HELD)
					? WebEndpointResponse.STATUS_NOT_FOUND : KeyRevocation.STATUS_CONFLICT;
			return new WebEndpointResponse<>(
					new Refusal(group, leaderGroup.path(), ex.getReason().name(), ex.getMessage()), status);
		}
	}

	/**
	 * What a hand-over request asked.
	 *
	 * @param group the group's name
	 * @param path the ZooKeeper path of the group
	 * @param asked the leader's node, asked to hand over
	 */
	public record Revocation(String group, String path, List<String> asked) {
	}

	/**
	 * Why a hand-over request asked nobody.
	 *
	 * @param group the group's name
	 * @param path the ZooKeeper path of the group
	 * @param reason {@code NOT_HELD} when nobody leads, or {@code NOT_A_LOCK} when the
	 * group's path holds something else than a leader's node
	 * @param message the refusal in words
	 */
	public record Refusal(String group, String path, String reason, String message) {
	}

}
