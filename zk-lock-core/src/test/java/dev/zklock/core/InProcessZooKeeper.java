package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.ZKClientConfig;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.zklock.core.faults.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A real in-process ZooKeeper server per test, with helpers for Curator clients that are
 * closed after the test. Each client is its own ZooKeeper session, which is what another
 * JVM is to the server. Shared with the other modules' tests through this module's test
 * jar.
 */
public class InProcessZooKeeper implements BeforeEachCallback, AfterEachCallback {

	public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	private TestingServer server;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private CuratorFramework observer;

	@Override
	public void beforeEach(ExtensionContext context) throws Exception {
		// No fsync per write: these tests measure the engine, not the disk
		System.setProperty("zookeeper.forceSync", "no");
		// tickTime 200 ms lets the tests use 4 s sessions (ZooKeeper allows 2 to 20
		// ticks)
		InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1);
		this.server = new TestingServer(spec, true);
	}

	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			try {
				this.closeables.get(i).close();
			}
			catch (Exception ex) {
				// best effort
			}
		}
		this.closeables.clear();
		this.observer = null;
		this.server.close();
	}

	public TestingServer server() {
		return this.server;
	}

	public String connectString() {
		return this.server.getConnectString();
	}

	public CuratorFramework newClient() throws InterruptedException {
		return newClient(connectString());
	}

	/**
	 * A started client of its own session, connected through the given address (a
	 * {@link ZkFaultProxy} in front of the server, say).
	 */
	public CuratorFramework newClient(String connectString) throws InterruptedException {
		return newClient(connectString, false);
	}

	/**
	 * A started client of its own session, connected through the given address, whose
	 * ZooKeeper handle may be told not to set its watches again on reconnect
	 * ({@link ZKClientConfig#DISABLE_AUTO_WATCH_RESET}): then every watch set before a
	 * disconnect is gone, without an event.
	 */
	public CuratorFramework newClient(String connectString, boolean disableAutoWatchReset) throws InterruptedException {
		ZKClientConfig config = new ZKClientConfig();
		config.setProperty(ZKClientConfig.DISABLE_AUTO_WATCH_RESET, Boolean.toString(disableAutoWatchReset));
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
			.connectionTimeoutMs(2000)
			.retryPolicy(new RetryOneTime(100))
			.zkClientConfig(config)
			.build();
		client.start();
		this.closeables.add(client);
		client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS);
		return client;
	}

	public ZkLockRegistry newRegistry(ZkLockOptions options) throws InterruptedException {
		ZkLockRegistry registry = new ZkLockRegistry(newClient(), options);
		this.closeables.add(registry);
		return registry;
	}

	public ZkLockRegistry newRegistry() throws InterruptedException {
		return newRegistry(ZkLockOptions.defaults());
	}

	/**
	 * A registry on a client of its own session.
	 */
	public ZkLockRegistry newRegistry(CuratorFramework client) {
		return newRegistry(client, ZkLockOptions.defaults());
	}

	/**
	 * A registry with options on a given client.
	 */
	public ZkLockRegistry newRegistry(CuratorFramework client, ZkLockOptions options) {
		ZkLockRegistry registry = new ZkLockRegistry(client, options);
		this.closeables.add(registry);
		return registry;
	}

	/**
	 * A fault proxy in front of the server, closed after the test.
	 */
	public ZkFaultProxy newProxy() throws java.io.IOException {
		ZkFaultProxy proxy = ZkFaultProxy.start("127.0.0.1", this.server.getPort());
		this.closeables.add(proxy);
		return proxy;
	}

	/**
	 * Awaitility, bounded for a loaded machine, polling on the test thread: the thread
	 * that holds the locks whose state a test reads.
	 */
	public static ConditionFactory eventually() {
		return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInSameThread().pollInterval(Duration.ofMillis(20));
	}

	/**
	 * The children of a path, empty if it does not exist, read by one raw client of the
	 * test.
	 */
	public List<String> children(String path) throws Exception {
		if (this.observer == null) {
			this.observer = newClient();
		}
		CuratorFramework client = this.observer;
		if (client.checkExists().forPath(path) == null) {
			return List.of();
		}
		return client.getChildren().forPath(path);
	}

}
