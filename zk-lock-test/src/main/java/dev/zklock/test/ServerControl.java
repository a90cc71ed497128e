package dev.zklock.test;

import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;

/**
 * The kit's way to run one ZooKeeper server, in-process or in a container: where it
 * listens, and stopping and starting it again with its data.
 */
interface ServerControl extends AutoCloseable {

	/** Where the server listens now; may change when it starts again. */
	InetSocketAddress address();

	void stop() throws Exception;

	/** Start the stopped server again, with the data and sessions it had. */
	void start() throws Exception;

	@Override
	void close();

	/**
	 * A server in a container of the image, through Testcontainers, which the test's
	 * class path must have (looked up by name: the kit does not need it otherwise).
	 */
	static ServerControl inContainer(String image, int tickTime) throws Exception {
		if (!isPresent("org.testcontainers.containers.GenericContainer")) {
			throw new IllegalStateException("ZkLockTestKit.inContainer(\"" + image
					+ "\") needs Testcontainers on the test class path: add org.testcontainers:testcontainers");
		}
		try {
			return (ServerControl) Class.forName("dev.zklock.test.TestcontainersControl")
				.getDeclaredConstructor(String.class, int.class)
				.newInstance(image, tickTime);
		}
		catch (InvocationTargetException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
	}

	/** Whether a Docker engine answers, as Testcontainers finds one; false without it. */
	static boolean isDockerAvailable() {
		if (!isPresent("org.testcontainers.DockerClientFactory")) {
			return false;
		}
		try {
			return (boolean) Class.forName("dev.zklock.test.TestcontainersControl")
				.getDeclaredMethod("isDockerAvailable")
				.invoke(null);
		}
		catch (ReflectiveOperationException | LinkageError ex) {
			return false;
		}
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, ServerControl.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

}
