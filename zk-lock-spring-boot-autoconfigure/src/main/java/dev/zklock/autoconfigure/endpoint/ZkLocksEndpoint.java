package dev.zklock.autoconfigure.endpoint;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;
import dev.zklock.core.Participant;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code zklocks} endpoint. {@code GET /actuator/zklocks} lists the locks this JVM
 * holds or waits for, with the recipe of each (exclusive lock, read/write lock,
 * semaphore), how many holds this JVM has on it, a semaphore's permits, and each call of
 * this JVM that waits for it (as many as the {@code zklock.waiting} meter counts);
 * {@code GET /actuator/zklocks/{key}} lists a key's participants across all JVMs, in
 * ZooKeeper queue order, the first holding it. Read-only.
 *
 * @author zk-lock
 */
@Endpoint(id = "zklocks")
public class ZkLocksEndpoint {

	private final ZkLockRegistry registry;

	private final @Nullable ZkLockTemplate template;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 */
	public ZkLocksEndpoint(ZkLockRegistry registry) {
		this(registry, null);
	}

	/**
	 * Create a new instance that also shows what each held key is held for.
	 * @param registry the lock registry
	 * @param template the template whose lock names are shown, if any
	 */
	public ZkLocksEndpoint(ZkLockRegistry registry, @Nullable ZkLockTemplate template) {
		this.registry = registry;
		this.template = template;
	}

	/**
	 * List the locks this JVM holds or waits for.
	 * @return the locks
	 */
	@ReadOperation
	public LocalLocks locks() {
		Map<String, String> names = (this.template != null) ? this.template.holderNames() : Map.of();
		List<LocalLock> locks = this.registry.localLocks()
			.stream()
			.sorted(Comparator.comparing(LocalLockInfo::key))
			.map((info) -> LocalLock.of(info, info.held() ? names.get(info.key()) : null))
			.toList();
		return new LocalLocks(this.registry.getOptions().rootPath(), locks);
	}

	/**
	 * List a key's participants across all JVMs.
	 * @param key the key
	 * @return the participants in queue order
	 * @throws InvalidLockKeyException if the key cannot be a lock key ({@code 400})
	 * @throws Exception if ZooKeeper cannot be read
	 */
	@ReadOperation
	public KeyParticipants participants(@Selector String key) throws Exception {
		String path = InvalidLockKeyException.lockPath(this.registry, key);
		return new KeyParticipants(key, path, this.registry.participants(key));
	}

	/**
	 * The locks of this JVM.
	 *
	 * @param rootPath the root path of all locks
	 * @param locks the locks held or waited for
	 */
	public record LocalLocks(String rootPath, List<LocalLock> locks) {
	}

	/**
	 * One key this JVM holds or waits for.
	 *
	 * @param key the key
	 * @param name the name of the lock that holds it ({@code @DistributedLock(name)} or
	 * {@code @DistributedSemaphore(name)}, by default {@code Class.method}; the oldest
	 * hold's when several readers or permits hold it), {@code null} if not held or held
	 * outside the template
	 * @param path the ZooKeeper path of the lock
	 * @param kind the recipe: {@code EXCLUSIVE}, {@code READ_WRITE} or {@code SEMAPHORE}
	 * @param held whether a thread or lease of this JVM holds it
	 * @param holds how many holds this JVM has on it: 1 for a held exclusive lock, the
	 * read holds of a read/write lock (its write side is shown by {@code holderThread}),
	 * the permits this JVM holds of a semaphore; 0 if it only waits
	 * @param permits a semaphore's number of permits, 0 for a lock
	 * @param holderThread the name of the thread holding it exclusively (the exclusive
	 * lock, or the write side of a read/write lock), {@code null} if none or held by a
	 * lease
	 * @param heldSince when the current hold began, {@code null} if not held
	 * @param waiters how many calls of this JVM wait for it, locally or for their turn in
	 * ZooKeeper: the size of {@code waiting}; the {@code zklock.waiting} meter is the sum
	 * over all keys
	 * @param nodePath the ZooKeeper node of this JVM's lease, {@code null} if none
	 * @param fencingToken the lease's fencing token, {@code null} if none
	 * @param leaseState the lease's state, {@code null} if none
	 * @param lingering whether this JVM keeps the node of an exclusive lock that nobody
	 * here holds ({@code zklock.lock.linger}): other JVMs see the key held
	 */
	public record LocalLock(String key, @Nullable String name, String path, LockKind kind, boolean held, int holds,
			int permits, @Nullable String holderThread, @Nullable Instant heldSince, int waiters,
			@Nullable String nodePath, @Nullable Long fencingToken, @Nullable LeaseState leaseState, boolean lingering,
			List<LocalWaiter> waiting) {

		static LocalLock of(LocalLockInfo info, @Nullable String name) {
			return new LocalLock(info.key(), name, info.path(), info.kind(), info.held(), info.holds(), info.permits(),
					info.holderThread(), info.heldSince(), info.waiters(), info.nodePath(), info.fencingToken(),
					info.leaseState(), info.lingering(), info.waiting());
		}

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
