package dev.zklock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock was not acquired within its wait, or ZooKeeper could not be reached
 * within it. The message names the key, the ZooKeeper path, the time waited and the
 * reason.
 *
 * @author zk-lock
 */
public class LockAcquisitionException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final String path;

	private final Duration waited;

	private final Reason reason;

	/**
	 * Create a new instance.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param waited how long the caller waited
	 * @param reason why the lock was not acquired
	 * @param detail a sentence of detail, for example who holds the lock
	 * @param cause the underlying failure, if any
	 */
	public LockAcquisitionException(String key, String path, Duration waited, Reason reason, String detail,
			@Nullable Throwable cause) {
		super("Could not acquire lock '" + key + "' (ZooKeeper path " + path + ") after waiting " + waited.toMillis()
				+ " ms: " + reason.description + (detail.isEmpty() ? "" : " (" + detail + ")"), cause);
		this.key = key;
		this.path = path;
		this.waited = waited;
		this.reason = reason;
	}

	/**
	 * Return the lock key.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return the ZooKeeper path of the lock.
	 * @return the path
	 */
	public String getPath() {
		return this.path;
	}

	/**
	 * Return how long the caller waited before giving up.
	 * @return the time waited
	 */
	public Duration getWaited() {
		return this.waited;
	}

	/**
	 * Return why the lock was not acquired.
	 * @return the reason
	 */
	public Reason getReason() {
		return this.reason;
	}

	/**
	 * Why a lock was not acquired.
	 */
	public enum Reason {

		/**
		 * Another thread of this JVM held the lock for the whole wait.
		 */
		HELD_LOCALLY("held by another thread of this JVM for the whole wait"),

		/**
		 * Another participant (another JVM or a plain Curator mutex) held the lock for
		 * the whole wait.
		 */
		HELD_REMOTELY("held by another participant for the whole wait"),

		/**
		 * ZooKeeper could not be reached within the wait.
		 */
		NOT_CONNECTED("ZooKeeper could not be reached within the wait"),

		/**
		 * ZooKeeper was reachable, but did not reply to a request within the wait: a slow
		 * or overloaded ensemble, or a connection that broke without the client noticing
		 * yet.
		 */
		NO_REPLY("ZooKeeper did not reply within the wait"),

		/**
		 * The waiting thread was interrupted.
		 */
		INTERRUPTED("the waiting thread was interrupted"),

		/**
		 * The registry was closed while the caller waited, or the application is stopping
		 * and the lock would have outlived it (a lock with a minimum hold).
		 */
		CLOSED("the lock registry was closed while waiting, or the application is stopping"),

		/**
		 * ZooKeeper refused an operation, for example for lack of permission.
		 */
		ERROR("ZooKeeper refused the operation");

		private final String description;

		Reason(String description) {
			this.description = description;
		}

		/**
		 * Return the reason in words, as the message gives it.
		 * @return the description
		 */
		public String description() {
			return this.description;
		}

		/**
		 * Whether the lock was busy: someone else, in this JVM or another participant,
		 * held it for the whole wait. Only then does trying again later make sense as it
		 * is; the other reasons say ZooKeeper, the caller or the registry failed.
		 * @return whether the reason is {@link #HELD_LOCALLY} or {@link #HELD_REMOTELY}
		 */
		public boolean isBusy() {
			return this == HELD_LOCALLY || this == HELD_REMOTELY;
		}

	}

}
