package dev.zklock.autoconfigure.testcontainers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * The ZooKeeper containers of these tests: a user's {@code GenericContainer} on port
 * 2181, waiting until ZooKeeper has loaded its database rather than only until its port
 * listens.
 * <p>
 * Testcontainers' default wait ends once the client port listens, and ZooKeeper listens
 * before it has loaded its database. A client that connects in that moment can get no
 * answer at all: ZooKeeper 3.9.4 fails to close such a connection (a
 * {@code NullPointerException} in {@code ZooKeeperServer.removeCnxn}, ZOOKEEPER-5051), so
 * the client waits out its connection timeout, 30 s with zk-lock's default session
 * timeout, longer than a lock's default wait. Seen here in about one container start in
 * twenty. ZooKeeper logs that its request processor started once the database is loaded;
 * a connection after that is answered, or closed at once while the server finishes
 * starting.
 *
 * @author zk-lock
 */
final class ZooKeeperContainers {

	private ZooKeeperContainers() {
	}

	/**
	 * A container of the given ZooKeeper image, exposing the client port and started once
	 * ZooKeeper answers clients.
	 * @param imageName the image name, as a user would write it
	 * @return the container, not started
	 */
	static GenericContainer<?> zooKeeper(String imageName) {
		return new GenericContainer<>(imageName).withExposedPorts(2181)
			.waitingFor(Wait.forLogMessage(".*PrepRequestProcessor \\(sid:\\d+\\) started.*", 1));
	}

}
