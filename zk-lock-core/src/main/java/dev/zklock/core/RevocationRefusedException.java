package dev.zklock.core;

/**
 * Thrown by {@link dev.zklock.core.registry.ZkLockRegistry#requestRevocation(String)}
 * when it asks nobody and writes nothing: nobody holds the key's lock, or the key's path
 * is not a lock whose holders can be asked (a semaphore's, say). The message names the
 * key, its path and the reason.
 *
 * @author zk-lock
 */
public class RevocationRefusedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final String path;

	private final Reason reason;

	private final String message;

	/**
	 * Create a new instance.
	 * @param key the lock key
	 * @param path the ZooKeeper path of the lock
	 * @param reason why nobody was asked
	 * @param detail a sentence of detail, for example what the path holds instead
	 */
	public RevocationRefusedException(String key, String path, Reason reason, String detail) {
		this("Revocation of lock '" + key + "' (ZooKeeper path " + path + ") refused, nothing written: "
				+ reason.description + (detail.isEmpty() ? "" : " (" + detail + ")"), key, path, reason);
	}

	private RevocationRefusedException(String message, String key, String path, Reason reason) {
		super(message);
		this.message = message;
		this.key = key;
		this.path = path;
		this.reason = reason;
	}

	/**
	 * Return the message: the key, its path and the reason.
	 * @return the message, never {@code null}
	 */
	@Override
	public String getMessage() {
		return this.message;
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
	 * Return why nobody was asked.
	 * @return the reason
	 */
	public Reason getReason() {
		return this.reason;
	}

	/**
	 * Why a revocation request asked nobody.
	 */
	public enum Reason {

		/** No lock node is under the key's path: nobody holds its lock. */
		NOT_HELD("nobody holds it"),

		/**
		 * The key's path holds nodes of another recipe and no lock node: a semaphore's
		 * leases and guard, for example, whose permits are not revocable.
		 */
		NOT_A_LOCK("it is not a revocable lock");

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

	}

}
