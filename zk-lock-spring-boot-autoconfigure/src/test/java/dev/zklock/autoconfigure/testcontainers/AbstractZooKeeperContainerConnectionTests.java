package dev.zklock.autoconfigure.testcontainers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Testcontainers;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockConnectionDetails;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain {@code @ServiceConnection} (no {@code name}) to a ZooKeeper container: each
 * subclass declares one {@code @Container @ServiceConnection} field whose image name
 * Spring Boot must match to {@link ZooKeeperContainerConnectionDetailsFactory} on its
 * own, and the registry must then lock in that container's ZooKeeper.
 * <p>
 * One subclass per image name rather than a parameterized test: Boot reads
 * {@code @ServiceConnection} from the static fields of the test class into that class's
 * context, and two ZooKeeper containers in one context would be two
 * {@link ZkLockConnectionDetails}.
 * <p>
 * Needs a Docker engine that has the images (on a machine without a registry,
 * {@code src/test/docker/build-zookeeper-image.sh} builds them); without one the tests
 * are skipped, as on CI, which has no Docker.
 */
@SpringJUnitConfig(AbstractZooKeeperContainerConnectionTests.TestConfiguration.class)
@Testcontainers(disabledWithoutDocker = true)
// The container stops after the class: a cached context would keep a client
// reconnecting to it for the rest of the run
@DirtiesContext
@Timeout(180)
abstract class AbstractZooKeeperContainerConnectionTests {

	@Autowired
	ZkLockConnectionDetails connectionDetails;

	@Autowired
	ZkLockRegistry registry;

	/**
	 * The container of the subclass's {@code @ServiceConnection} field.
	 * @return the container
	 */
	abstract GenericContainer<?> container();

	@Test
	void connectsToTheContainer() {
		GenericContainer<?> container = container();
		assertThat(this.connectionDetails.getConnectString())
			.isEqualTo(container.getHost() + ":" + container.getMappedPort(2181));
		ZkLock lock = this.registry.obtain("container");
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isPositive();
		}
		finally {
			lock.unlock();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class TestConfiguration {

	}

}
