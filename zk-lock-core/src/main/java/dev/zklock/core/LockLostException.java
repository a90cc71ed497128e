package dev.zklock.core;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link ZkLock#unlock()} (under {@link LostLockPolicy#THROW}) when the lease
 * was {@link LeaseState#LOST} while the lock was held: the ZooKeeper session that owned
 * it expired, or another client deleted its node. Another participant may have held the
 * lock at the same time. The local state is already released when this is thrown.
 *
 * @author zk-lock
 */
public class LockLostException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private static final String DEFAULT_BECAUSE = "the ZooKeeper session expired or another client deleted its node";

	private final String key;

	private final String path;

	private final long fencingToken;

	private final @Nullable String lostBecause;

	private final WorkOutcome workOutcome;

	/**
	 * Create a new instance for a loss found at the release, after the work.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 */
	public LockLostException(String key, String path, long fencingToken) {
		this(key, path, fencingToken, DEFAULT_BECAUSE);
	}

	/**
	 * Create a new instance that says what happened, for a loss found at the release,
	 * after the work.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 * @param lostBecause what made the lease lost, such as "the ZooKeeper session
	 * expired"
	 */
	public LockLostException(String key, String path, long fencingToken, String lostBecause) {
		this(key, path, fencingToken, lostBecause, WorkOutcome.COMPLETED);
	}

	/**
	 * Create a new instance that says what happened, and what became of the work under
	 * the lock.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 * @param lostBecause what made the lease lost, such as "the ZooKeeper session
	 * expired"
	 * @param workOutcome what became of the work
	 */
	public LockLostException(String key, String path, long fencingToken, String lostBecause, WorkOutcome workOutcome) {
		super("Lock '" + key + "' (ZooKeeper path " + path + ", fencing token " + fencingToken
				+ ") was lost while held: " + lostBecause + ", so another participant may have held it too; "
				+ workOutcome.description);
		this.key = key;
		this.path = path;
		this.fencingToken = fencingToken;
		this.lostBecause = lostBecause;
		this.workOutcome = workOutcome;
	}

	/**
	 * Create a new instance with a message of its own, for a subclass that says what the
	 * loss prevented: the work is {@link WorkOutcome#STOPPED stopped} there.
	 * @param message the message
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param fencingToken the fencing token of the lost lease
	 * @param cause what revealed the loss, if anything did
	 */
	protected LockLostException(String message, String key, String path, long fencingToken, @Nullable Throwable cause) {
		super(message, cause);
		this.key = key;
		this.path = path;
		this.fencingToken = fencingToken;
		this.lostBecause = null;
		this.workOutcome = WorkOutcome.STOPPED;
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
	 * Return the fencing token of the lost lease.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return what made the lease lost, as the message says it, if this exception says it
	 * in those words.
	 * @return the reason, or {@code null} for a subclass with a message of its own
	 */
	public @Nullable String getLostBecause() {
		return this.lostBecause;
	}

	/**
	 * Return what became of the work under the lock: it ran to its end, it was stopped,
	 * or it never began.
	 * @return the work's outcome
	 */
	public WorkOutcome getWorkOutcome() {
		return this.workOutcome;
	}

	/**
	 * What became of the work under a lock that was lost while held, as far as the code
	 * that threw knows: what a caller, or an HTTP response, can say of it.
	 */
	public enum WorkOutcome {

		/**
		 * The work ran to its end; the release found the lease lost (a {@code ZkLock}
		 * unlocked after its work, a method under {@code onLost = CONTINUE}). All of it
		 * was done, part of it possibly while another participant held the lock.
		 */
		COMPLETED("the work under it ran to its end"),

		/**
		 * The work was stopped when the loss was heard: interrupted or cancelled under
		 * {@code onLost = INTERRUPT}, or ended by a check that found the lease lost
		 * ({@code checkHeld()}, a refused guarded write). Part of it may have been done.
		 */
		STOPPED("the work under it was stopped"),

		/**
		 * A call that would have entered the lock again was refused before its work
		 * began: nothing of it was done.
		 */
		NOT_STARTED("the call was refused before its work began");

		private final String description;

		WorkOutcome(String description) {
			this.description = description;
		}

	}

}
