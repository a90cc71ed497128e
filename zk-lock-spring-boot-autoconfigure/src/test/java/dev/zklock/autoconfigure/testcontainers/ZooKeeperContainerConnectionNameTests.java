package dev.zklock.autoconfigure.testcontainers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.autoconfigure.ZkLockConnectionDetails;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.testcontainers.service.connection.TestContainerConnectionSources;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which container images {@link ZooKeeperContainerConnectionDetailsFactory} accepts,
 * through Spring Boot's own matching and without Docker: no container is created or
 * started.
 */
@Timeout(30)
class ZooKeeperContainerConnectionNameTests {

	private final ZooKeeperContainerConnectionDetailsFactory factory = new ZooKeeperContainerConnectionDetailsFactory();

	@ParameterizedTest
	@ValueSource(strings = { "zookeeper", "zookeeper:3.9", "zookeeper:3.9.4", "library/zookeeper",
			"library/zookeeper:3.9", "docker.io/library/zookeeper:3.9", "docker.io/zookeeper:3.9",
			"bitnami/zookeeper:3.9", "docker.io/bitnami/zookeeper:3.9", "registry.example.com/zookeeper:3.9",
			"registry.example.com/library/zookeeper:3.9", "localhost:5000/zookeeper:3.9",
			"zookeeper@sha256:0123456789012345678901234567890123456789012345678901234567890123" })
	void acceptsZooKeeperImages(String imageName) {
		assertThat(this.factory.getConnectionDetails(TestContainerConnectionSources.of(imageName, null)))
			.isInstanceOf(ZkLockConnectionDetails.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "postgres:17", "confluentinc/cp-zookeeper:7.7.0", "zookeeper-exporter", "mycompany/zk",
			"registry.example.com/mirror/zookeeper:3.9" })
	void rejectsOtherImages(String imageName) {
		assertThat(this.factory.getConnectionDetails(TestContainerConnectionSources.of(imageName, null))).isNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "registry.example.com/mirror/zookeeper:3.9", "mycompany/zk:1.0" })
	void acceptsAnyImageNamedZooKeeperByTheServiceConnection(String imageName) {
		assertThat(this.factory.getConnectionDetails(TestContainerConnectionSources.of(imageName, "zookeeper")))
			.isInstanceOf(ZkLockConnectionDetails.class);
	}

	@Test
	void rejectsZooKeeperImageNamedOtherwiseByTheServiceConnection() {
		assertThat(this.factory.getConnectionDetails(TestContainerConnectionSources.of("zookeeper:3.9", "kafka")))
			.isNull();
	}

	@Test
	void isRegisteredWithSpringBoot() {
		// the factory Boot loads from spring.factories, not only the one constructed
		// above
		assertThat(new ConnectionDetailsFactories(null)
			.getConnectionDetails(TestContainerConnectionSources.of("bitnami/zookeeper:3.9", null), false))
			.containsKey(ZkLockConnectionDetails.class);
	}

}
