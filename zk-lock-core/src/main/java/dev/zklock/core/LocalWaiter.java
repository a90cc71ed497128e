package dev.zklock.core;

import java.time.Instant;

/**
 * One call of this JVM that waits for a key: in the local queue, for this JVM's other
 * readers, or for its turn in ZooKeeper.
 *
 * @param thread the name of the thread that made the call
 * @param mode what the call asked for
 * @param since when the call began to wait
 * @author zk-lock
 */
public record LocalWaiter(String thread, Mode mode, Instant since) {

	/**
	 * What a waiting call asked for.
	 */
	public enum Mode {

		/** The exclusive lock. */
		EXCLUSIVE,

		/** The read side of a read/write lock. */
		READ,

		/** The write side of a read/write lock. */
		WRITE,

		/** A permit of a semaphore. */
		SEMAPHORE

	}

}
