package dev.zklock.autoconfigure.diagnostics;

/**
 * Thrown at startup when {@code zklock.embedded.enabled} is {@code true} but the embedded
 * ZooKeeper server, which lives in its own module ({@value #MODULE}), is not on the
 * classpath. Startup fails rather than connecting to {@code zklock.connect-string}: a
 * forgotten dependency must not turn into a connection to whatever listens on
 * {@code localhost:2181}.
 *
 * @author zk-lock
 */
public class EmbeddedZooKeeperModuleMissingException extends IllegalStateException {

	/**
	 * Coordinates of the module that holds the embedded server.
	 */
	public static final String MODULE = "dev.zklock:zk-lock-embedded-zookeeper";

	/**
	 * Auto-configuration of the embedded server, whose absence means the module is
	 * missing.
	 */
	public static final String AUTO_CONFIGURATION = "dev.zklock.embedded.EmbeddedZooKeeperAutoConfiguration";

	/**
	 * Create a new instance, with a message that names the module to add.
	 */
	public EmbeddedZooKeeperModuleMissingException() {
		super("zklock.embedded.enabled is true, but the embedded ZooKeeper server is not on the classpath: add "
				+ MODULE + " to the application's dependencies");
	}

	/**
	 * Return the coordinates of the module to add.
	 * @return {@code groupId:artifactId} of the module
	 */
	public String getModule() {
		return MODULE;
	}

}
