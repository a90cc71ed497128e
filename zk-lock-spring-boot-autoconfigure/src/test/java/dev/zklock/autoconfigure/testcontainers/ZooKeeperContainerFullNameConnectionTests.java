package dev.zklock.autoconfigure.testcontainers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * {@code @ServiceConnection} to the official image by its full name,
 * {@code docker.io/library/zookeeper:3.9}: Boot compares the repository as written,
 * {@code library/zookeeper}, so this passes only because the factory lists that name too.
 */
class ZooKeeperContainerFullNameConnectionTests extends AbstractZooKeeperContainerConnectionTests {

	@Container
	@ServiceConnection
	static final GenericContainer<?> zookeeper = ZooKeeperContainers.zooKeeper("docker.io/library/zookeeper:3.9");

	@Override
	GenericContainer<?> container() {
		return zookeeper;
	}

}
