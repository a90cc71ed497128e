package dev.zklock.core;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Which recipe a key is locked with, as this JVM uses it.
 *
 * @author zk-lock
 */
public enum LockKind {

	/** The exclusive, reentrant mutex: {@link ZkLockRegistry#obtain}. */
	EXCLUSIVE,

	/** A read/write lock: {@link ZkLockRegistry#obtainReadWrite}. */
	READ_WRITE,

	/** A counting semaphore: {@link ZkLockRegistry#obtainSemaphore}. */
	SEMAPHORE

}
