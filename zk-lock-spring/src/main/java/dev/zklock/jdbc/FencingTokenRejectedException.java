package dev.zklock.jdbc;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * Thrown when the store refuses a fenced write: the token of the lock this holder had is
 * lower than the one the store holds, so the lock was lost and another holder has taken
 * it and written since. Nothing of the refused write is applied; thrown inside a
 * transaction, it rolls the transaction back (it is a {@link RuntimeException}), so
 * nothing written before it in the same transaction remains either.
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

	/**
	 * Create a new instance.
	 * @param key what was written: a lock key for a fenced transaction, a record (its
	 * table and id) for a fenced record
	 * @param token the fencing token this holder wrote with
	 * @param storedToken the higher token the store holds
	 */
	public FencingTokenRejectedException(String key, long token, long storedToken) {
		super("Fenced write to '" + key + "' refused: this holder's fencing token " + token + " is below " + storedToken
				+ ", the token the store holds, so the lock was lost and a later holder has written"
				+ " since; nothing of this write was applied");
		this.key = key;
		this.token = token;
		this.storedToken = storedToken;
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

}
