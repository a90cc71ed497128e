package dev.zklock.jdbc;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * Thrown when the store refuses a fenced write or fenced read: the token of the lock this
 * holder had is lower than the one the store holds. Usually the lock was lost and another
 * holder has taken it and written or fenced the record since; {@link #getHolderLock()}
 * says what is known (a holder that still holds its lock was refused because of a
 * misuse). Nothing of the refused write is applied; thrown inside a transaction, it rolls
 * the transaction back (it is a {@link RuntimeException}), so nothing written before it
 * in the same transaction remains either.
 *
 * <p>
 * A {@link org.springframework.dao.DataAccessException DataAccessException}, as the
 * database's refusal of a write is, and non-transient: the same write with the same token
 * is refused forever. The work may be tried again only by taking the lock again, which
 * gives a new token, and reading the data again.
 *
 * @author zk-lock
 */
public class FencingTokenRejectedException extends NonTransientDataAccessException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final long token;

	private final long storedToken;

	private final HolderLock holderLock;

	/**
	 * Create an instance for a refusal whose holder's lock is not known.
	 * @param key what was written: a lock key for a fenced transaction, a record (its
	 * table and id) for a fenced record
	 * @param token the fencing token this holder wrote with
	 * @param storedToken the higher token the store holds
	 */
	public FencingTokenRejectedException(String key, long token, long storedToken) {
		this(key, token, storedToken, HolderLock.UNKNOWN);
	}

	/**
	 * Create an instance.
	 * @param key what was written: a lock key for a fenced transaction, a record (its
	 * table and id) for a fenced record
	 * @param token the fencing token this holder wrote with
	 * @param storedToken the higher token the store holds
	 * @param holderLock what is known of the refused holder's lock, which tells why
	 */
	public FencingTokenRejectedException(String key, long token, long storedToken, HolderLock holderLock) {
		super("Fenced write to '" + key + "' refused: this holder's fencing token " + token + " is below " + storedToken
				+ ", the token the store holds, " + holderLock.explanation + "; nothing of this write was applied");
		this.key = key;
		this.token = token;
		this.storedToken = storedToken;
		this.holderLock = holderLock;
	}

	/**
	 * Return what was written: a lock key for a fenced transaction, a record for a fenced
	 * record (as {@code table[idColumn=id]}).
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return the fencing token this holder wrote with.
	 * @return the token
	 */
	public long getToken() {
		return this.token;
	}

	/**
	 * Return the token the store holds, higher than this holder's.
	 * @return the stored token
	 */
	public long getStoredToken() {
		return this.storedToken;
	}

	/**
	 * Return what is known of the refused holder's lock: lost (the usual case: a pause,
	 * an expired session), still held (a misuse: the higher token came from outside this
	 * key's lock), or unknown.
	 * @return the holder's lock
	 */
	public HolderLock getHolderLock() {
		return this.holderLock;
	}

	/**
	 * What is known, at the refusal, of the lock the refused holder wrote under: the
	 * difference between a lost lock and a misuse.
	 */
	public enum HolderLock {

		/**
		 * The lock was lost (its session expired, or its node was deleted), and a later
		 * holder of the key has written the record or fenced it since: what fencing is
		 * for.
		 */
		LOST("so this holder's lock was lost and a later holder of the key has written or fenced it since"),

		/**
		 * ZooKeeper confirmed after the refusal that the holder still holds its lock, so
		 * the higher token was stored by a writer outside this key's lock: a holder of
		 * another key writing the same record or fence key, or a reader sharing a read
		 * lock or a semaphore that fenced it. Both are misuses: only the holders of one
		 * exclusive key may fence a record or a fence key.
		 */
		HELD("though this holder still holds its lock (ZooKeeper confirms it): the higher token was stored by a "
				+ "writer outside this key's lock, a holder of another key or a reader sharing a read lock or "
				+ "semaphore; only the holders of one exclusive key may fence a record or fence key"),

		/**
		 * Not known: the token was given rather than taken from the lock this thread
		 * holds, or ZooKeeper could not be asked.
		 */
		UNKNOWN("so either this holder's lock was lost and a later holder of the key has written or fenced it "
				+ "since, or a writer outside this key's lock stored a higher token (a holder of another key, a "
				+ "reader sharing a read lock or semaphore)");

		private final String explanation;

		HolderLock(String explanation) {
			this.explanation = explanation;
		}

	}

}
