package dev.zklock.autoconfigure.endpoint;

import dev.zklock.core.RevocationRefusedException;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.SecurityContext;
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
 * the reason ({@link RevocationRefusedException}). Each request is logged with who asked.
 *
 * @author zk-lock
 */
@EndpointWebExtension(endpoint = ZkLocksEndpoint.class)
public class ZkLocksRevocationWebExtension {

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 */
	public ZkLocksRevocationWebExtension(ZkLockRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Request revocation of a key's lock, and log who asked.
	 * @param key the key
	 * @param securityContext who asks
	 * @return the nodes asked ({@code 200}), or why nobody was asked ({@code 404} or
	 * {@code 409})
	 * @throws InvalidLockKeyException if the key cannot be a lock key ({@code 400});
	 * nothing is written
	 * @throws Exception if ZooKeeper could not be written within the connection timeout
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> revoke(@Selector String key, SecurityContext securityContext) throws Exception {
		return KeyRevocation.revoke(this.registry, key, securityContext);
	}

}
