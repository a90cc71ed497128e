package dev.zklock.autoconfigure.testcontainers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * {@code @ServiceConnection} to Bitnami's image, {@code bitnami/zookeeper:3.9}, which
 * serves clients on the same port 2181.
 */
class ZooKeeperContainerBitnamiConnectionTests extends AbstractZooKeeperContainerConnectionTests {

	// Bitnami's image refuses to start without authentication unless told otherwise
	@Container
	@ServiceConnection
	static final GenericContainer<?> zookeeper = ZooKeeperContainers.zooKeeper("bitnami/zookeeper:3.9")
		.withEnv("ALLOW_ANONYMOUS_LOGIN", "yes");

	@Override
	GenericContainer<?> container() {
		return zookeeper;
	}

}
