package dev.zklock.test;

import java.io.IOException;
import java.net.InetSocketAddress;

import org.apache.curator.test.TestingServer;

/**
 * A server in the test's JVM: Curator's {@link TestingServer}, started again on the same
 * port with the same data.
 */
final class InProcessControl implements ServerControl {

	private final TestingServer server;

	InProcessControl(int tickTime) throws Exception {
		this.server = KitServer.startServer(tickTime);
	}

	@Override
	public InetSocketAddress address() {
		return new InetSocketAddress("127.0.0.1", this.server.getPort());
	}

	@Override
	public void stop() throws IOException {
		this.server.stop();
	}

	@Override
	public void start() throws Exception {
		this.server.restart();
	}

	@Override
	public void close() {
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

}
