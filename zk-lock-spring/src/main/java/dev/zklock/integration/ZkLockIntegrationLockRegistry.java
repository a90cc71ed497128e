package dev.zklock.integration;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} backed by a {@link ZkLockRegistry}: use it
 * wherever a {@code JdbcLockRegistry}, {@code RedisLockRegistry} or
 * {@code ZookeeperLockRegistry} was used, such as a {@code LockRegistryLeaderInitiator},
 * an aggregator or {@code executeLocked}.
 *
 * <p>
 * Each lock is a {@link ZkLock}: reentrant and owned by the thread that locked it, as
 * Spring Integration's locks are, held through an ephemeral ZooKeeper node that goes with
 * the application's session. It is not a
 * {@link org.springframework.integration.support.locks.DistributedLock DistributedLock}:
 * a hold has no time to live to give, it lasts until unlocked or until the session ends.
 *
 * <p>
 * A lock key becomes a zk-lock key through {@link #keyFor(Object)}: a {@code String} as
 * it is, any other object as its {@code toString()}, unchanged, so that the lock is the
 * one {@code @DistributedLock} and {@link ZkLockRegistry#obtain(String)} see under the
 * same key. A key that cannot be one ZooKeeper path segment is rejected with an
 * {@link IllegalArgumentException} naming it, never rewritten: a rewritten key could meet
 * another key's lock.
 *
 * <p>
 * A reentrant attempt by a thread whose hold was {@link dev.zklock.core.LeaseState#LOST
 * lost} (its ZooKeeper session expired, so another participant may hold the lock now)
 * throws {@link dev.zklock.core.LockLostException} instead of succeeding, as every
 * zk-lock does: a {@code LockRegistryLeaderInitiator} retries its lock on every
 * heartbeat, and this is how it learns that it no longer leads. It then unlocks, and its
 * next attempt competes afresh.
 *
 * @author zk-lock
 */
public class ZkLockIntegrationLockRegistry implements ExpirableLockRegistry<ZkLock> {

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the zk-lock registry that holds the locks
	 */
	public ZkLockIntegrationLockRegistry(ZkLockRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	/**
	 * Return the lock for a key. Cheap: nothing is kept for the key until the lock is
	 * taken.
	 * @param lockKey the key; see {@link #keyFor(Object)}
	 * @return the lock
	 * @throws IllegalArgumentException if the key cannot be a zk-lock key
	 */
	@Override
	public ZkLock obtain(Object lockKey) {
		return this.registry.obtain(keyFor(lockKey));
	}

	/**
	 * Map a Spring Integration lock key to a zk-lock key: its {@code toString()}. Objects
	 * that only have {@link Object#toString()}, whose text differs in every JVM, are
	 * rejected: the same key would name a different lock on each node.
	 * @param lockKey the key
	 * @return the zk-lock key, one ZooKeeper path segment
	 * @throws IllegalArgumentException naming the key and what is wrong with it
	 */
	public String keyFor(@Nullable Object lockKey) {
		if (lockKey == null) {
			throw new IllegalArgumentException("Spring Integration lock key must not be null");
		}
		if (!(lockKey instanceof CharSequence) && hasIdentityToString(lockKey)) {
			throw new IllegalArgumentException("Spring Integration lock key of type " + lockKey.getClass().getName()
					+ " cannot be a zk-lock key: it has no toString() of its own, so its text ('" + lockKey
					+ "') would differ in every JVM; use a String, a number, a UUID or a type with a stable toString()");
		}
		String key = lockKey.toString();
		try {
			LockPaths.validateKey(key);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Spring Integration lock key '" + key + "' ("
					+ lockKey.getClass().getName() + ") cannot be a zk-lock key: " + ex.getMessage(), ex);
		}
		return key;
	}

	/**
	 * Does nothing: the zk-lock registry keeps no lock in memory that nobody holds or
	 * waits for, so there is never an unused lock to expire. Implemented so that code
	 * written against an {@link ExpirableLockRegistry} keeps working unchanged.
	 * @param age ignored
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
	}

	/**
	 * Return the zk-lock registry that holds the locks.
	 * @return the registry
	 */
	public ZkLockRegistry getRegistry() {
		return this.registry;
	}

	private static boolean hasIdentityToString(Object lockKey) {
		try {
			return lockKey.getClass().getMethod("toString").getDeclaringClass() == Object.class;
		}
		catch (NoSuchMethodException ex) {
			// Every class has a public toString(); keep the key rather than guess
			return false;
		}
	}

	@Override
	public String toString() {
		return "ZkLockIntegrationLockRegistry[" + this.registry.getOptions().rootPath() + "]";
	}

}
