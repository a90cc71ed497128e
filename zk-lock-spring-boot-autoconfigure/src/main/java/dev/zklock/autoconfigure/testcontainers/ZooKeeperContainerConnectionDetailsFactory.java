package dev.zklock.autoconfigure.testcontainers;

import java.util.List;

import org.testcontainers.containers.Container;

import dev.zklock.autoconfigure.ZkLockConnectionDetails;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * {@link ContainerConnectionDetailsFactory} that turns a ZooKeeper container, annotated
 * {@code @ServiceConnection}, into {@link ZkLockConnectionDetails}:
 *
 * <pre class="code">
 * &#064;Container
 * &#064;ServiceConnection
 * static GenericContainer&lt;?&gt; zk = new GenericContainer&lt;&gt;("zookeeper:3.9").withExposedPorts(2181);
 * </pre>
 * <p>
 * Matching is Spring Boot's own: the connection name is the {@code name} of the
 * {@code @ServiceConnection} or, without one, the repository of the image name, that is
 * the image name without its registry host, tag and digest. {@code zookeeper},
 * {@code library/zookeeper} and {@code bitnami/zookeeper} are accepted, so
 * {@code zookeeper:3.9}, {@code docker.io/library/zookeeper:3.9},
 * {@code bitnami/zookeeper:3.9} and {@code registry.example.com/zookeeper:3.9} all match.
 * Any other repository, such as a mirror under its own path
 * ({@code registry.example.com/mirror/zookeeper:3.9}), needs
 * {@code @ServiceConnection(name = "zookeeper")}.
 *
 * @author zk-lock
 */
class ZooKeeperContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, ZkLockConnectionDetails> {

	/**
	 * Connection names accepted, compared by Spring Boot ignoring case with the
	 * {@code @ServiceConnection} name or the image's repository.
	 * {@code library/zookeeper} is listed because Boot compares the repository as
	 * written, so {@code docker.io/library/zookeeper} would otherwise miss;
	 * {@code bitnami/zookeeper} serves clients on the same port 2181.
	 */
	static final List<String> CONNECTION_NAMES = List.of("zookeeper", "library/zookeeper", "bitnami/zookeeper");

	private static final int CLIENT_PORT = 2181;

	ZooKeeperContainerConnectionDetailsFactory() {
		super(CONNECTION_NAMES);
	}

	@Override
	protected ZkLockConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
		return new ZooKeeperContainerConnectionDetails(source);
	}

	/**
	 * {@link ZkLockConnectionDetails} backed by a {@link ContainerConnectionSource}.
	 */
	private static final class ZooKeeperContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
			implements ZkLockConnectionDetails {

		private ZooKeeperContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		@Override
		public String getConnectString() {
			Container<?> container = getContainer();
			return container.getHost() + ":" + container.getMappedPort(CLIENT_PORT);
		}

	}

}
