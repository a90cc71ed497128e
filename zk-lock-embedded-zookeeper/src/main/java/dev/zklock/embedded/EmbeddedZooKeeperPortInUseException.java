package dev.zklock.embedded;

/**
 * Thrown when the embedded ZooKeeper server cannot start because its client port
 * ({@code zklock.embedded.port}) is already in use.
 *
 * @author zk-lock
 */
public class EmbeddedZooKeeperPortInUseException extends IllegalStateException {

	private final int port;

	EmbeddedZooKeeperPortInUseException(int port, Throwable cause) {
		super("The embedded ZooKeeper server cannot listen on port " + port
				+ " (zklock.embedded.port): it is already in use", cause);
		this.port = port;
	}

	/**
	 * Return the port that is in use.
	 * @return the port
	 */
	public int getPort() {
		return this.port;
	}

}
