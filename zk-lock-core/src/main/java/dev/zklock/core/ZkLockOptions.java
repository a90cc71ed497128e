package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * Options of a {@link dev.zklock.core.registry.ZkLockRegistry ZkLockRegistry}. Immutable;
 * start from {@link #defaults()} and change what you need with the {@code with...}
 * methods.
 *
 * @param rootPath the ZooKeeper path under which each key's lock lives, {@code /locks} by
 * default
 * @param defaultWait how long
 * {@link dev.zklock.core.registry.ZkLockRegistry#executeLocked} and the annotation wait
 * when no wait is given, 10 seconds by default
 * @param maxLocalHandoffs how many times a held node may be passed to the next local
 * thread while another JVM waits for it, counted from when this JVM hears of that JVM (a
 * child event, or a child list), 8 by default; 0 disables local hand-off altogether
 * @param lostLockPolicy what {@code unlock()} does with a lease lost while held
 * @param releaseTimeout how long a release waits for ZooKeeper to confirm the delete of
 * the lock node before it leaves the delete to the background; {@link Duration#ZERO} by
 * default: the release returns once the delete is sent (see
 * {@link dev.zklock.core.registry.ZkLockRegistry#awaitReleased(Duration)} to wait where
 * needed)
 * @param linger how long an exclusive lock's node is kept after the last local holder
 * released it, while no other participant queues for the key, so that this JVM's next
 * acquisition of the key costs no request; {@link Duration#ZERO} (off) by default. The
 * node is deleted at once when another participant joins the queue
 * @param acl the ACL of the nodes the engine creates; open by default, creator-only
 * ({@link ZooDefs.Ids#CREATOR_ALL_ACL}) when the client authenticates
 * @param maxKeysPerCall the most distinct keys one lock on several keys
 * ({@link dev.zklock.core.registry.ZkLockRegistry#obtainAll},
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainAllReadWrite}) may take,
 * {@value #DEFAULT_MAX_KEYS_PER_CALL} by default; more are refused before any request to
 * ZooKeeper
 * @author zk-lock
 */
public record ZkLockOptions(String rootPath, Duration defaultWait, int maxLocalHandoffs, LostLockPolicy lostLockPolicy,
		Duration releaseTimeout, Duration linger, List<ACL> acl, int maxKeysPerCall) {

	/**
	 * The default root path.
	 */
	public static final String DEFAULT_ROOT_PATH = "/locks";

	/**
	 * The longest linger: a node kept longer than a session is likely to last helps
	 * nobody.
	 */
	public static final Duration MAX_LINGER = Duration.ofHours(1);

	/**
	 * The default bound on the keys of one lock on several keys. The keys are taken one
	 * by one, a ZooKeeper round trip each (and one more each to release them), under one
	 * wait: 64 cost some tens of milliseconds on a healthy ensemble, a small part of the
	 * default wait, while a call with thousands of keys would spend its whole wait taking
	 * them, and load the ensemble for every caller.
	 */
	public static final int DEFAULT_MAX_KEYS_PER_CALL = 64;

	/**
	 * Validate the options.
	 * @param rootPath the root path
	 * @param defaultWait the default wait
	 * @param maxLocalHandoffs the hand-off bound
	 * @param lostLockPolicy the lost-lock policy
	 * @param releaseTimeout the release timeout
	 * @param linger the linger
	 * @param acl the ACL of created nodes
	 * @param maxKeysPerCall the most distinct keys of one lock on several keys
	 */
	public ZkLockOptions {
		Objects.requireNonNull(acl, "acl must not be null");
		if (acl.isEmpty()) {
			throw new IllegalArgumentException("acl must not be empty");
		}
		acl = List.copyOf(acl);
		Objects.requireNonNull(rootPath, "rootPath must not be null");
		Objects.requireNonNull(defaultWait, "defaultWait must not be null");
		Objects.requireNonNull(lostLockPolicy, "lostLockPolicy must not be null");
		Objects.requireNonNull(releaseTimeout, "releaseTimeout must not be null");
		Objects.requireNonNull(linger, "linger must not be null");
		LockPaths.validateRootPath(rootPath);
		if (defaultWait.isNegative()) {
			throw new IllegalArgumentException("defaultWait must not be negative, but was " + defaultWait);
		}
		if (maxLocalHandoffs < 0) {
			throw new IllegalArgumentException("maxLocalHandoffs must not be negative, but was " + maxLocalHandoffs);
		}
		if (releaseTimeout.isNegative()) {
			throw new IllegalArgumentException("releaseTimeout must not be negative, but was " + releaseTimeout);
		}
		if (linger.isNegative() || linger.compareTo(MAX_LINGER) > 0) {
			throw new IllegalArgumentException("linger must be between 0 and " + MAX_LINGER + ", but was " + linger);
		}
		if (maxKeysPerCall < 1) {
			throw new IllegalArgumentException("maxKeysPerCall must be at least 1, but was " + maxKeysPerCall);
		}
	}

	/**
	 * The options of earlier versions, with the default bound on the keys of one call
	 * ({@value #DEFAULT_MAX_KEYS_PER_CALL}).
	 * @param rootPath the root path
	 * @param defaultWait the default wait
	 * @param maxLocalHandoffs the hand-off bound
	 * @param lostLockPolicy the lost-lock policy
	 * @param releaseTimeout the release timeout
	 * @param linger the linger
	 * @param acl the ACL of created nodes
	 */
	public ZkLockOptions(String rootPath, Duration defaultWait, int maxLocalHandoffs, LostLockPolicy lostLockPolicy,
			Duration releaseTimeout, Duration linger, List<ACL> acl) {
		this(rootPath, defaultWait, maxLocalHandoffs, lostLockPolicy, releaseTimeout, linger, acl,
				DEFAULT_MAX_KEYS_PER_CALL);
	}

	/**
	 * Return the default options.
	 * @return the defaults
	 */
	public static ZkLockOptions defaults() {
		return new ZkLockOptions(DEFAULT_ROOT_PATH, Duration.ofSeconds(10), 8, LostLockPolicy.THROW, Duration.ZERO,
				Duration.ZERO, ZooDefs.Ids.OPEN_ACL_UNSAFE);
	}

	/**
	 * Return a copy with another root path.
	 * @param rootPath an absolute ZooKeeper path, not {@code /}, and not ZooKeeper's
	 * reserved tree {@code /zookeeper} or inside it (see
	 * {@link LockPaths#validateRootPath})
	 * @return the new options
	 * @throws IllegalArgumentException naming the path and what is wrong with it
	 */
	public ZkLockOptions withRootPath(String rootPath) {
		return new ZkLockOptions(rootPath, this.defaultWait, this.maxLocalHandoffs, this.lostLockPolicy,
				this.releaseTimeout, this.linger, this.acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another default wait.
	 * @param defaultWait the default wait
	 * @return the new options
	 */
	public ZkLockOptions withDefaultWait(Duration defaultWait) {
		return new ZkLockOptions(this.rootPath, defaultWait, this.maxLocalHandoffs, this.lostLockPolicy,
				this.releaseTimeout, this.linger, this.acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another hand-off bound.
	 * @param maxLocalHandoffs the bound, 0 to disable hand-off
	 * @return the new options
	 */
	public ZkLockOptions withMaxLocalHandoffs(int maxLocalHandoffs) {
		return new ZkLockOptions(this.rootPath, this.defaultWait, maxLocalHandoffs, this.lostLockPolicy,
				this.releaseTimeout, this.linger, this.acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another lost-lock policy.
	 * @param lostLockPolicy the policy
	 * @return the new options
	 */
	public ZkLockOptions withLostLockPolicy(LostLockPolicy lostLockPolicy) {
		return new ZkLockOptions(this.rootPath, this.defaultWait, this.maxLocalHandoffs, lostLockPolicy,
				this.releaseTimeout, this.linger, this.acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another release timeout.
	 * @param releaseTimeout how long a release waits for the delete's confirmation;
	 * {@link Duration#ZERO} not to wait
	 * @return the new options
	 */
	public ZkLockOptions withReleaseTimeout(Duration releaseTimeout) {
		return new ZkLockOptions(this.rootPath, this.defaultWait, this.maxLocalHandoffs, this.lostLockPolicy,
				releaseTimeout, this.linger, this.acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another linger for exclusive locks.
	 * @param linger how long a released node is kept while no other participant queues;
	 * {@link Duration#ZERO} to delete it at once
	 * @return the new options
	 */
	public ZkLockOptions withLinger(Duration linger) {
		return new ZkLockOptions(this.rootPath, this.defaultWait, this.maxLocalHandoffs, this.lostLockPolicy,
				this.releaseTimeout, linger, this.acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another ACL for created nodes.
	 * @param acl the ACL
	 * @return the new options
	 */
	public ZkLockOptions withAcl(List<ACL> acl) {
		return new ZkLockOptions(this.rootPath, this.defaultWait, this.maxLocalHandoffs, this.lostLockPolicy,
				this.releaseTimeout, this.linger, acl, this.maxKeysPerCall);
	}

	/**
	 * Return a copy with another bound on the keys of one lock on several keys.
	 * @param maxKeysPerCall the most distinct keys one call may lock, at least 1
	 * @return the new options
	 */
	public ZkLockOptions withMaxKeysPerCall(int maxKeysPerCall) {
		return new ZkLockOptions(this.rootPath, this.defaultWait, this.maxLocalHandoffs, this.lostLockPolicy,
				this.releaseTimeout, this.linger, this.acl, maxKeysPerCall);
	}

}
