package dev.zklock.autoconfigure.endpoint;

import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Adds {@code DELETE /actuator/zkcluster/{key}} to the {@link ZkClusterEndpoint}, the
 * live page's revoke action: asks the holders of a key's lock, in any JVM, to give it up,
 * as {@code DELETE /actuator/zklocks/{key}} does, and logs who asked. Only present with
 * {@code zklock.endpoint.revocation-enabled=true}.
 *
 * @author zk-lock
 */
@EndpointWebExtension(endpoint = ZkClusterEndpoint.class)
public class ZkClusterRevocationWebExtension {

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 */
	public ZkClusterRevocationWebExtension(ZkLockRegistry registry) {
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
