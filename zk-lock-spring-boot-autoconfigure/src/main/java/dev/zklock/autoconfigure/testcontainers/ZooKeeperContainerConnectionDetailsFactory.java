package dev.zklock.autoconfigure.testcontainers;

import org.testcontainers.containers.Container;

import dev.zklock.autoconfigure.ZkLockConnectionDetails;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * {@link ContainerConnectionDetailsFactory} that turns a container of the official
 * {@code zookeeper} image, annotated {@code @ServiceConnection}, into
 * {@link ZkLockConnectionDetails}:
 *
 * <pre class="code">
 * &#064;Container
 * &#064;ServiceConnection
 * static GenericContainer&lt;?&gt; zk = new GenericContainer&lt;&gt;("zookeeper:3.9").withExposedPorts(2181);
 * </pre>
 *
 * @author zk-lock
 */
class ZooKeeperContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, ZkLockConnectionDetails> {

	private static final int CLIENT_PORT = 2181;

	ZooKeeperContainerConnectionDetailsFactory() {
		super("zookeeper");
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
