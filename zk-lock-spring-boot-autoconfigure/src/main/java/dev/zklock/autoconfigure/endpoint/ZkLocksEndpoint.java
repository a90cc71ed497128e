package dev.zklock.autoconfigure.endpoint;

import java.util.Comparator;
import java.util.List;

import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.Participant;
import dev.zklock.core.ZkLockRegistry;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code zklocks} endpoint. {@code GET /actuator/zklocks} lists the locks this JVM holds or
 * waits for; {@code GET /actuator/zklocks/{key}} lists a key's participants across all JVMs, in
 * ZooKeeper queue order, the first holding it. Read-only.
 *
 * @author zk-lock
 */
@Endpoint(id = "zklocks")
public class ZkLocksEndpoint {

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 */
	public ZkLocksEndpoint(ZkLockRegistry registry) {
		this.registry = registry;
	}

	/**
	 * List the locks this JVM holds or waits for.
	 * @return the locks
	 */
	@ReadOperation
	public LocalLocks locks() {
		List<LocalLockInfo> locks = this.registry.localLocks()
			.stream()
			.sorted(Comparator.comparing(LocalLockInfo::key))
			.toList();
		return new LocalLocks(this.registry.getOptions().rootPath(), locks);
	}

	/**
	 * List a key's participants across all JVMs.
	 * @param key the key
	 * @return the participants in queue order
	 * @throws Exception if ZooKeeper cannot be read
	 */
	@ReadOperation
	public KeyParticipants participants(@Selector String key) throws Exception {
		return new KeyParticipants(key, this.registry.lockPath(key), this.registry.participants(key));
	}

	/**
	 * The locks of this JVM.
	 *
	 * @param rootPath the root path of all locks
	 * @param locks the locks held or waited for
	 */
	public record LocalLocks(String rootPath, List<LocalLockInfo> locks) {
	}

	/**
	 * A key's participants.
	 *
	 * @param key the key
	 * @param path the lock path
	 * @param participants the participants in queue order, the first holding the lock
	 */
	public record KeyParticipants(String key, String path, List<Participant> participants) {
	}

}
