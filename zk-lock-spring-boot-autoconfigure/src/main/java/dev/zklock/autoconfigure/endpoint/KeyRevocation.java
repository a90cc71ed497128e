package dev.zklock.autoconfigure.endpoint;

import java.security.Principal;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.RevocationRefusedException;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * A revocation request of a key's lock over HTTP, as the {@code zklocks} and the
 * {@code zkcluster} endpoints answer it: checked, asked through
 * {@link ZkLockRegistry#requestRevocation(String)}, and logged with who asked (the
 * principal, when the request carries one), since it may interrupt another instance's
 * work.
 *
 * @author zk-lock
 */
final class KeyRevocation {

	private static final Logger logger = LoggerFactory.getLogger(KeyRevocation.class);

	/** The status of a request that conflicts with the state of its target. */
	static final int STATUS_CONFLICT = 409;

	private KeyRevocation() {
	}

	/**
	 * Ask the holders of a key's lock to give it up.
	 * @return the nodes asked ({@code 200}), or why nobody was asked ({@code 404} or
	 * {@code 409})
	 * @throws InvalidLockKeyException if the key cannot be a lock key ({@code 400});
	 * nothing is written
	 */
	static WebEndpointResponse<Object> revoke(ZkLockRegistry registry, String key, SecurityContext securityContext)
			throws Exception {
		String path = InvalidLockKeyException.lockPath(registry, key);
		String who = who(securityContext);
		String shown = InvalidLockKeyException.escape(key);
		try {
			List<String> asked = registry.requestRevocation(key);
			logger.info("Holders of lock '{}' ({}) asked to give it up, requested by {}: {}", shown, path, who, asked);
			return new WebEndpointResponse<>(new Revocation(key, path, asked));
		}
		catch (RevocationRefusedException ex) {
			logger.info("Revocation of lock '{}' ({}) requested by {} asked nobody: {}", shown, path, who,
					ex.getReason());
			int status = (ex.getReason() == RevocationRefusedException.Reason.NOT_HELD)
					? WebEndpointResponse.STATUS_NOT_FOUND : STATUS_CONFLICT;
			return new WebEndpointResponse<>(
					new Refusal(ex.getKey(), ex.getPath(), ex.getReason().name(), ex.getMessage()), status);
		}
	}

	/**
	 * Who made a request, for the log: the principal's name, control characters escaped.
	 */
	static String who(SecurityContext securityContext) {
		Principal principal = securityContext.getPrincipal();
		return (principal != null) ? "'" + InvalidLockKeyException.escape(principal.getName()) + "'"
				: "an unauthenticated caller";
	}

	/**
	 * What a revocation request asked.
	 *
	 * @param key the key
	 * @param path the ZooKeeper path of its lock
	 * @param asked the nodes that held the lock and were asked to give it up
	 */
	record Revocation(String key, String path, List<String> asked) {
	}

	/**
	 * Why a revocation request asked nobody.
	 *
	 * @param key the key
	 * @param path the ZooKeeper path of its lock
	 * @param reason {@code NOT_HELD} or {@code NOT_A_LOCK}
	 * @param message the refusal in words, naming the key and the reason
	 */
	record Refusal(String key, String path, String reason, String message) {
	}

}
