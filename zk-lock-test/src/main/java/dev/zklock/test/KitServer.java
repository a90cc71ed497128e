package dev.zklock.test;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.jspecify.annotations.Nullable;

/**
 * The kit's ZooKeeper: an in-process server, the {@link ZkFaultProxy} the application
 * connects through, and the kit's own client, which connects directly and so reads and
 * acts whatever the proxy does to the application.
 */
final class KitServer implements AutoCloseable {

	private final TestingServer server;

	private final ZkFaultProxy proxy;

	private final CuratorFramework admin;

	private final Duration sessionTimeout;

	private boolean stopped;

	private KitServer(TestingServer server, ZkFaultProxy proxy, CuratorFramework admin, Duration sessionTimeout) {
		this.server = server;
		this.proxy = proxy;
		this.admin = admin;
		this.sessionTimeout = sessionTimeout;
	}

	static KitServer start(Duration sessionTimeout) {
		TestingServer server = null;
		try {
			// A tenth of the session: sessions expire within a tick of their timeout.
			// Every session timeout a kit may ask for (200 ms to 20 s) is granted as
			// asked, whatever the tick: in Spring mode one server, started for the
			// first kit, serves kits of other session timeouts
			server = startServer((int) Math.max(20, Math.min(2000, sessionTimeout.toMillis() / 10)),
					Map.of("minSessionTimeout", "200", "maxSessionTimeout", "20000"));
			ZkFaultProxy proxy = ZkFaultProxy.start("127.0.0.1", server.getPort());
			CuratorFramework admin = newClient(server.getConnectString(), sessionTimeout);
			if (!admin.blockUntilConnected(10, TimeUnit.SECONDS)) {
				admin.close();
				proxy.close();
				throw new IllegalStateException("The kit's client did not connect to its own ZooKeeper server at "
						+ server.getConnectString() + " within 10 s");
			}
			return new KitServer(server, proxy, admin, sessionTimeout);
		}
		catch (RuntimeException ex) {
			closeQuietly(server);
			throw ex;
		}
		catch (Exception ex) {
			closeQuietly(server);
			throw new IllegalStateException("The kit's ZooKeeper server did not start", ex);
		}
	}

	/**
	 * An in-process server on a free port with a tick of its own.
	 */
	static TestingServer startServer(int tickTime) throws Exception {
		return startServer(tickTime, null);
	}

	/**
	 * An in-process server on a free port with a tick of its own and some properties of
	 * its configuration set.
	 */
	private static TestingServer startServer(int tickTime, @Nullable Map<String, Object> properties) throws Exception {
		// No fsync per write: tests measure the code under test, not the disk
		System.setProperty("zookeeper.forceSync", "no");
		InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, tickTime, -1, properties);
		return new TestingServer(spec, true);
	}

	/** A started client of its own session, retrying once, as the kit's clients are. */
	static CuratorFramework newClient(String connectString, Duration sessionTimeout) {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) sessionTimeout.toMillis())
			.connectionTimeoutMs((int) Math.min(2000, sessionTimeout.toMillis()))
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		return client;
	}

	/** Where the application connects: through the proxy. */
	String connectString() {
		return this.proxy.connectString();
	}

	/** Where the kit connects: to the server itself. */
	String serverConnectString() {
		return this.server.getConnectString();
	}

	Duration sessionTimeout() {
		return this.sessionTimeout;
	}

	ZkFaultProxy proxy() {
		return this.proxy;
	}

	CuratorFramework admin() {
		return this.admin;
	}

	synchronized void stop() throws IOException {
		this.server.stop();
		this.stopped = true;
	}

	synchronized void restart() throws Exception {
		if (this.stopped) {
			this.server.restart();
			this.stopped = false;
		}
	}

	synchronized boolean isStopped() {
		return this.stopped;
	}

	@Override
	public void close() {
		this.admin.close();
		this.proxy.close();
		closeQuietly(this.server);
	}

	private static void closeQuietly(@Nullable TestingServer server) {
		if (server != null) {
			try {
				server.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
	}

}
