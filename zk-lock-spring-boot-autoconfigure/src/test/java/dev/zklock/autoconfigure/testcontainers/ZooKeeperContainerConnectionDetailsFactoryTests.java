package dev.zklock.autoconfigure.testcontainers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockConnectionDetails;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @ServiceConnection} to the official {@code zookeeper} image. Needs a Docker
 * engine: skipped cleanly without one (CI has none).
 */
@SpringJUnitConfig
@Testcontainers(disabledWithoutDocker = true)
@Timeout(180)
class ZooKeeperContainerConnectionDetailsFactoryTests {

	@Container
	@ServiceConnection
	static final GenericContainer<?> zookeeper = new GenericContainer<>("zookeeper:3.9").withExposedPorts(2181);

	@Autowired
	ZkLockConnectionDetails connectionDetails;

	@Autowired
	ZkLockRegistry registry;

	@Test
	void connectsToTheContainer() {
		assertThat(this.connectionDetails.getConnectString())
			.isEqualTo(zookeeper.getHost() + ":" + zookeeper.getMappedPort(2181));
		ZkLock lock = this.registry.obtain("container");
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isPositive();
		}
		finally {
			lock.unlock();
		}
	}

	// @Configuration: without it Spring's test context does not detect the nested class,
	// and
	// nothing is auto-configured
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class TestConfiguration {

	}

}
