package dev.zklock.test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.jspecify.annotations.Nullable;

/**
 * The kit's ZooKeeper: one server (in-process, or in a container), the
 * {@link ZkFaultProxy} the application connects through, a second proxy that never faults
 * for the kit's own client and the participants, and that client, which so reads and acts
 * whatever the faults do to the application. Both proxies follow the server when it
 * starts again on another port.
 */
final class KitServer implements AutoCloseable {

	private final ServerControl control;

	private final ZkFaultProxy proxy;

	private final ZkFaultProxy direct;

	private final CuratorFramework admin;

	private final Duration sessionTimeout;

	private boolean stopped;

	private KitServer(ServerControl control, ZkFaultProxy proxy, ZkFaultProxy direct, CuratorFramework admin,
			Duration sessionTimeout) {
		this.control = control;
		this.proxy = proxy;
		this.direct = direct;
		this.admin = admin;
		this.sessionTimeout = sessionTimeout;
	}

	/**
	 * Start a server and the kit's proxies and client.
	 * @param sessionTimeout the sessions the kit's clients ask for
	 * @param image a Docker image to run the server in, or null for one in-process
	 */
	static KitServer start(Duration sessionTimeout, @Nullable String image) {
		// A tenth of the session: sessions are granted as asked (2 to 20 ticks) and
		// expire
		// within a tick of their timeout
		int tickTime = (int) Math.max(20, Math.min(2000, sessionTimeout.toMillis() / 10));
		ServerControl control = null;
		try {
			control = (image != null) ? ServerControl.inContainer(image, tickTime) : new InProcessControl(tickTime);
			InetSocketAddress address = control.address();
			ZkFaultProxy proxy = ZkFaultProxy.start(address.getHostString(), address.getPort());
			ZkFaultProxy direct = ZkFaultProxy.start(address.getHostString(), address.getPort());
			CuratorFramework admin = newClient(direct.connectString(), sessionTimeout);
			if (!admin.blockUntilConnected(30, TimeUnit.SECONDS)) {
				admin.close();
				proxy.close();
				direct.close();
				throw new IllegalStateException(
						"The kit's client did not connect to its own ZooKeeper server at " + address + " within 30 s");
			}
			return new KitServer(control, proxy, direct, admin, sessionTimeout);
		}
		catch (RuntimeException ex) {
			if (control != null) {
				control.close();
			}
			throw ex;
		}
		catch (Exception ex) {
			if (control != null) {
				control.close();
			}
			throw new IllegalStateException("The kit's ZooKeeper server did not start", ex);
		}
	}

	/**
	 * An in-process server on a free port with a tick of its own.
	 */
	static TestingServer startServer(int tickTime) throws Exception {
		// No fsync per write: tests measure the code under test, not the disk
		System.setProperty("zookeeper.forceSync", "no");
		InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, tickTime, -1);
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

	/** Where the application connects: through the faulting proxy. */
	String connectString() {
		return this.proxy.connectString();
	}

	/**
	 * Where the kit and the participants connect: through the proxy that never faults.
	 */
	String serverConnectString() {
		return this.direct.connectString();
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

	synchronized void stop() throws Exception {
		if (!this.stopped) {
			this.control.stop();
			this.stopped = true;
			// A stopped container's connections may linger: drop them, as a stopped
			// server's are
			this.proxy.killConnections();
			this.direct.killConnections();
		}
	}

	synchronized void restart() throws Exception {
		if (this.stopped) {
			this.control.start();
			InetSocketAddress address = this.control.address();
			this.proxy.retarget(address.getHostString(), address.getPort());
			this.direct.retarget(address.getHostString(), address.getPort());
			this.stopped = false;
		}
	}

	@Override
	public void close() {
		this.admin.close();
		this.proxy.close();
		this.direct.close();
		this.control.close();
	}

}
