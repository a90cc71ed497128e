package dev.zklock.test;

import java.net.InetSocketAddress;
import java.time.Duration;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A server in a Docker container of an official {@code zookeeper} image, through
 * Testcontainers. Stopped and started again as a container (its data volume kept), which
 * may publish its port anew: the kit then sends its proxies there.
 */
final class TestcontainersControl implements ServerControl {

	private static final int CLIENT_PORT = 2181;

	private final GenericContainer<?> container;

	private volatile InetSocketAddress address;

	@SuppressWarnings("resource")
	TestcontainersControl(String image, int tickTime) {
		this.container = new GenericContainer<>(DockerImageName.parse(image)).withExposedPorts(CLIENT_PORT)
			.withEnv("ZOO_TICK_TIME", Integer.toString(tickTime))
			.withEnv("ZOO_ADMINSERVER_ENABLED", "false")
			// The port opens before the database is loaded: wait for the server's line
			.waitingFor(Wait.forLogMessage(".*PrepRequestProcessor \\(sid:\\d+\\) started.*", 1)
				.withStartupTimeout(Duration.ofMinutes(2)));
		this.container.start();
		this.address = new InetSocketAddress(this.container.getHost(), this.container.getMappedPort(CLIENT_PORT));
	}

	/** Whether a Docker engine answers, as Testcontainers finds one. */
	static boolean isDockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	@Override
	public InetSocketAddress address() {
		return this.address;
	}

	@Override
	public void stop() {
		this.container.getDockerClient().stopContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void start() {
		String id = this.container.getContainerId();
		this.container.getDockerClient().startContainerCmd(id).exec();
		Ports.Binding[] bindings = this.container.getDockerClient()
			.inspectContainerCmd(id)
			.exec()
			.getNetworkSettings()
			.getPorts()
			.getBindings()
			.get(ExposedPort.tcp(CLIENT_PORT));
		if (bindings == null || bindings.length == 0 || bindings[0].getHostPortSpec() == null) {
			throw new IllegalStateException("The ZooKeeper container " + id + " published no port for " + CLIENT_PORT
					+ " after it started again");
		}
		this.address = new InetSocketAddress(this.container.getHost(), Integer.parseInt(bindings[0].getHostPortSpec()));
	}

	@Override
	public void close() {
		this.container.stop();
	}

}
