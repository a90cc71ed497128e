package dev.zklock.autoconfigure.endpoint;

import java.util.List;

import dev.zklock.core.RevocationRefusedException;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Adds {@code DELETE /actuator/zklocks/{key}} to the {@link ZkLocksEndpoint}: asks
 * whoever holds the key's lock, in any JVM, to give it up, by writing Curator's
 * revocation request into the holders' nodes
 * ({@link ZkLockRegistry#requestRevocation(String)}). Holders that listen
 * ({@code @DistributedLock(revocable = true)}, Curator's {@code makeRevocable}) are told;
 * nothing is taken from the others. Only present with
 * {@code zklock.endpoint.revocation-enabled=true}: whoever may call it may interrupt the
 * application's locked work, so it needs the access control of any write operation. A
 * request that asks nobody, and writes nothing, is answered {@code 404} if nobody holds
 * the key's lock and {@code 409} if the key is not a revocable lock (a semaphore's), with
 * the reason ({@link RevocationRefusedException}).
 *
 * @author zk-lock
 */
@EndpointWebExtension(endpoint = ZkLocksEndpoint.class)
public class ZkLocksRevocationWebExtension {

	/** The status of a request that conflicts with the state of its target. */
	private static final int STATUS_CONFLICT = 409;

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 */
	public ZkLocksRevocationWebExtension(ZkLockRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Request revocation of a key's lock.
	 * @param key the key
	 * @return the nodes asked ({@code 200}), or why nobody was asked ({@code 404} or
	 * {@code 409})
	 * @throws InvalidLockKeyException if the key cannot be a lock key ({@code 400});
	 * nothing is written
	 * @throws Exception if ZooKeeper could not be written within the connection timeout
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> revoke(@Selector String key) throws Exception {
		String path = InvalidLockKeyException.lockPath(this.registry, key);
		try {
			return new WebEndpointResponse<>(new Revocation(key, path, this.registry.requestRevocation(key)));
		}
		catch (RevocationRefusedException ex) {
			int status = (ex.getReason() == RevocationRefusedException.Reason.NOT_HELD)
					? WebEndpointResponse.STATUS_NOT_FOUND : STATUS_CONFLICT;
			return new WebEndpointResponse<>(
					new Refusal(ex.getKey(), ex.getPath(), ex.getReason().name(), ex.getMessage()), status);
		}
	}

	/**
	 * What a revocation request asked.
	 *
	 * @param key the key
	 * @param path the ZooKeeper path of its lock
	 * @param asked the nodes that held the lock and were asked to give it up
	 */
	public record Revocation(String key, String path, List<String> asked) {
	}

	/**
	 * Why a revocation request asked nobody.
	 *
	 * @param key the key
	 * @param path the ZooKeeper path of its lock
	 * @param reason {@code NOT_HELD} or {@code NOT_A_LOCK}
	 * @param message the refusal in words, naming the key and the reason
	 */
	public record Refusal(String key, String path, String reason, String message) {
	}

}
