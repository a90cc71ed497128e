package dev.zklock.autoconfigure.testcontainers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * {@code @ServiceConnection} to the official {@code zookeeper} image by its short name.
 */
class ZooKeeperContainerConnectionDetailsFactoryTests extends AbstractZooKeeperContainerConnectionTests {

	@Container
	@ServiceConnection
	static final GenericContainer<?> zookeeper = ZooKeeperContainers.zooKeeper("zookeeper:3.9");

	@Override
	GenericContainer<?> container() {
		return zookeeper;
	}

}
