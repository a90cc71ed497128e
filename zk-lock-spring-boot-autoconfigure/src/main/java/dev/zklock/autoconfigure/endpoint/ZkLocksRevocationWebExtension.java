package dev.zklock.autoconfigure.endpoint;

import java.util.List;

import dev.zklock.core.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * Adds {@code DELETE /actuator/zklocks/{key}} to the {@link ZkLocksEndpoint}: asks
 * whoever holds the key's lock, in any JVM, to give it up, by writing Curator's
 * revocation request into the holders' nodes
 * ({@link ZkLockRegistry#requestRevocation(String)}). Holders that listen
 * ({@code @DistributedLock(revocable = true)}, Curator's {@code makeRevocable}) are told;
 * nothing is taken from the others. Only present with
 * {@code zklock.endpoint.revocation-enabled=true}: whoever may call it may interrupt the
 * application's locked work, so it needs the access control of any write operation.
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
	 * Request revocation of a key's lock.
	 * @param key the key
	 * @return the nodes asked
	 * @throws Exception if ZooKeeper could not be written within the connection timeout
	 */
	@DeleteOperation
	public Revocation revoke(@Selector String key) throws Exception {
		return new Revocation(key, this.registry.lockPath(key), this.registry.requestRevocation(key));
	}

	/**
	 * What a revocation request asked.
	 *
	 * @param key the key
	 * @param path the ZooKeeper path of its lock
	 * @param asked the nodes that held the lock and were asked to give it up; empty if
	 * nobody held it
	 */
	public record Revocation(String key, String path, List<String> asked) {
	}

}
