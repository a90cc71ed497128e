package dev.zklock.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;

import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A real in-process ZooKeeper server for a test, with helpers for Curator clients that
 * are closed after the test. Each client is its own ZooKeeper session, which is what
 * another JVM is to the server. A part of the test kit, for tests that need a server of
 * their own or the proxy's finer faults; {@link ZkLockTestKit} is built on the same
 * parts.
 * <p>
 * Registered on an instance field with {@code @RegisterExtension}, in one of two ways:
 * <ul>
 * <li>{@link #perClass()}: one server for all the tests of the class, each test on a root
 * of its own. The connect string a test is given ends in a chroot ({@code /t-7}, say)
 * created before the test, so clients, registries, {@link #children(String)} and Spring
 * applications given {@link #connectString()} all see an empty tree. Such a test must not
 * disturb the server: {@link #server()} and {@link #newProxy()} fail.</li>
 * <li>{@link #perTest()}: a server of the test's own, started before and closed after it,
 * for a test that stops or restarts the server, expires sessions, or goes through the
 * fault proxy.</li>
 * </ul>
 */
public final class InProcessZooKeeper implements BeforeEachCallback, AfterEachCallback {

	/** The session timeout of every client this extension makes. */
	public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	private static final Namespace NAMESPACE = Namespace.create(InProcessZooKeeper.class);

	private final boolean shared;

	private @Nullable TestingServer server;

	/**
	 * The chroot of this test on a shared server, with its leading slash; empty on a
	 * server of the test's own.
	 */
	private String root = "";

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private @Nullable CuratorFramework observer;

	private InProcessZooKeeper(boolean shared) {
		this.shared = shared;
	}

	/**
	 * One server for all the tests of the class, each test on an empty root of its own;
	 * the test must leave the server alone (no {@link #server()}, no {@link #newProxy()},
	 * no session expiry).
	 * @return the extension to register on an instance field
	 */
	public static InProcessZooKeeper perClass() {
		return new InProcessZooKeeper(true);
	}

	/**
	 * A fresh server for each test, for tests that stop or restart it, expire sessions,
	 * or go through the fault proxy.
	 * @return the extension to register on an instance field
	 */
	public static InProcessZooKeeper perTest() {
		return new InProcessZooKeeper(false);
	}

	@Override
	public void beforeEach(ExtensionContext context) throws Exception {
		if (this.shared) {
			SharedServer shared = classContext(context).getStore(NAMESPACE)
				.computeIfAbsent(SharedServer.class, (key) -> SharedServer.start(), SharedServer.class);
			this.server = shared.server;
			this.root = shared.newRoot();
		}
		else {
			this.server = startServer();
		}
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
		TestingServer server = this.server;
		if (!this.shared && server != null) {
			server.close();
		}
	}

	/**
	 * The server of this test alone.
	 * @return the server
	 * @throws IllegalStateException if the server is shared by the tests of the class
	 */
	public TestingServer server() {
		assertServerOfItsOwn("server()");
		return running();
	}

	/**
	 * The connect string of this test: on a shared server, it ends in the test's chroot.
	 * @return the connect string
	 */
	public String connectString() {
		return running().getConnectString() + this.root;
	}

	/**
	 * A started client of its own session, connected to this test's server (and root),
	 * closed after the test.
	 * @return the client
	 * @throws InterruptedException if interrupted while it connects
	 */
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
		CuratorFramework client = startClient(connectString, disableAutoWatchReset);
		this.closeables.add(client);
		client.blockUntilConnected(10, TimeUnit.SECONDS);
		return client;
	}

	/**
	 * A registry with options on a client of its own session, closed after the test.
	 * @param options the registry's options
	 * @return the registry
	 * @throws InterruptedException if interrupted while its client connects
	 */
	public ZkLockRegistry newRegistry(ZkLockOptions options) throws InterruptedException {
		ZkLockRegistry registry = new ZkLockRegistry(newClient(), options);
		this.closeables.add(registry);
		return registry;
	}

	/**
	 * A registry with the default options on a client of its own session, closed after
	 * the test.
	 * @return the registry
	 * @throws InterruptedException if interrupted while its client connects
	 */
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
	 * A fault proxy in front of the server of this test alone, closed after the test.
	 * @throws IllegalStateException if the server is shared by the tests of the class
	 */
	public ZkFaultProxy newProxy() throws IOException {
		assertServerOfItsOwn("newProxy()");
		ZkFaultProxy proxy = ZkFaultProxy.start("127.0.0.1", running().getPort());
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
		CuratorFramework client = this.observer;
		if (client == null) {
			client = newClient();
			this.observer = client;
		}
		for (int attempt = 1;; attempt++) {
			try {
				if (client.checkExists().forPath(path) == null) {
					return List.of();
				}
				return client.getChildren().forPath(path);
			}
			catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException ex) {
				// The observer is not what a test looks at: on a machine loaded enough to
				// pause it past its session, it reads again on its next session
				if (attempt == 10 || !client.blockUntilConnected(20, TimeUnit.SECONDS)) {
					throw ex;
				}
				// Curator may not have seen the expiry yet: back off before reading again
				Thread.sleep(100L * attempt);
			}
		}
	}

	private TestingServer running() {
		TestingServer server = this.server;
		if (server == null) {
			throw new IllegalStateException("The in-process ZooKeeper runs only while a test runs");
		}
		return server;
	}

	private void assertServerOfItsOwn(String method) {
		if (this.shared) {
			// Stopping it, cutting it off or expiring sessions on it would disturb the
			// other tests of the class
			throw new IllegalStateException(method + " needs a server of the test's own, but this one is shared by "
					+ "the tests of the class: register InProcessZooKeeper.perTest() instead of perClass()");
		}
	}

	private static ExtensionContext classContext(ExtensionContext context) {
		// A parameterized or repeated test's invocation sits below its method's context
		ExtensionContext current = context;
		while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
			current = current.getParent().get();
		}
		return current;
	}

	private static TestingServer startServer() throws Exception {
		// tickTime 200 ms lets the tests use 4 s sessions (ZooKeeper allows 2 to 20
		// ticks)
		return KitServer.startServer(200);
	}

	private static CuratorFramework startClient(String connectString, boolean disableAutoWatchReset) {
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
		return client;
	}

	/**
	 * The server of a test class, kept in the class's store, which closes it after the
	 * class's last test; and the client that creates each test's root.
	 */
	private static final class SharedServer implements AutoCloseable {

		private final TestingServer server;

		private final CuratorFramework admin;

		private final AtomicInteger roots = new AtomicInteger();

		private SharedServer(TestingServer server, CuratorFramework admin) {
			this.server = server;
			this.admin = admin;
		}

		static SharedServer start() {
			try {
				TestingServer server = startServer();
				CuratorFramework admin = startClient(server.getConnectString(), false);
				if (!admin.blockUntilConnected(10, TimeUnit.SECONDS)) {
					admin.close();
					server.close();
					throw new IllegalStateException("No connection to the test's ZooKeeper server");
				}
				return new SharedServer(server, admin);
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new IllegalStateException("The test's ZooKeeper server did not start", ex);
			}
		}

		String newRoot() throws Exception {
			String root = "/t-" + this.roots.incrementAndGet();
			this.admin.create().forPath(root);
			return root;
		}

		@Override
		public void close() throws IOException {
			this.admin.close();
			this.server.close();
		}

	}

}
