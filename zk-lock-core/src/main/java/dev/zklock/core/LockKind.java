package dev.zklock.core;

/**
 * Which recipe a key is locked with, as this JVM uses it.
 *
 * @author zk-lock
 */
public enum LockKind {

	/**
	 * The exclusive, reentrant mutex:
	 * {@link dev.zklock.core.registry.ZkLockRegistry#obtain}.
	 */
	EXCLUSIVE,

	/**
	 * A read/write lock: {@link dev.zklock.core.registry.ZkLockRegistry#obtainReadWrite}.
	 */
	READ_WRITE,

	/**
	 * A counting semaphore:
	 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainSemaphore}.
	 */
	SEMAPHORE

}
