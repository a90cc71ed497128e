package dev.zklock.test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

import dev.zklock.core.Participant;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Tests your own locked code against a lost lock, an outage and a paused holder: a JUnit
 * Jupiter extension with a real ZooKeeper server in the test's JVM, the application's
 * client connected to it through a fault proxy, faults aimed at that client, hooks on its
 * lock events and assertions on what ZooKeeper holds.
 * <p>
 * Register it on a static field:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static ZkLockTestKit zk = ZkLockTestKit.create();
 * </pre>
 *
 * <ul>
 * <li>On a plain test class, the class gets a server of its own, and {@link #registry()}
 * is the application: a registry created for each test on a session of its own, closed
 * after it.</li>
 * <li>On a {@code @SpringBootTest} class, the application context's own {@code zklock}
 * client is pointed at the kit (its {@code zklock.connect-string}, set by a
 * {@code ContextCustomizer} as {@code @DynamicPropertySource} would, and
 * {@code zklock.session-timeout}), and {@link #registry()} is the context's
 * {@link ZkLockRegistry}. All such classes of a test JVM share one server, so that their
 * contexts can be cached as Spring caches them.</li>
 * </ul>
 * <p>
 * After each test the kit lifts every fault, starts the server again if a test stopped
 * it, waits for the application to be connected, and fails the test if a hook it was
 * given never fired. Every wait of the kit is bounded by {@link #timeout(Duration)} (10 s
 * unless set); the faults are made on the server and in the proxy, never by sleeping.
 *
 * @author zk-lock
 * @see #onAcquired(String, ThrowingRunnable)
 * @see #assertThatKey(String)
 */
public final class ZkLockTestKit implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

	/** The session timeout unless set: faults that wait for an expiry stay short. */
	public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	private static final Object SHARED_LOCK = new Object();

	/**
	 * The servers shared by the Spring test classes of the JVM, by image ("" in-process).
	 */
	private static final Map<String, KitServer> SHARED = new HashMap<>();

	private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;

	private Duration timeout = DEFAULT_TIMEOUT;

	private ZkLockOptions options = ZkLockOptions.defaults();

	private @Nullable String image;

	/** Set once a Spring test context has been pointed at this kit. */
	private volatile boolean spring;

	/** How the application's registry is found in a Spring test. */
	private volatile @Nullable Function<ExtensionContext, ZkLockRegistry> springRegistry;

	private @Nullable KitServer ownServer;

	private @Nullable ExtensionContext test;

	private volatile @Nullable ZkLockRegistry application;

	private volatile @Nullable ZkLockRegistry observer;

	private final ApplicationEvents events = new ApplicationEvents();

	/** Added to from hooks on the application's threads too. */
	private final List<AutoCloseable> closeAfterTest = new CopyOnWriteArrayList<>();

	private ZkLockTestKit() {
	}

	/**
	 * A kit with a {@link #DEFAULT_SESSION_TIMEOUT 2 s session} and 10 s bounds, to
	 * register on a static field with {@code @RegisterExtension}.
	 * @return the kit
	 */
	public static ZkLockTestKit create() {
		return new ZkLockTestKit();
	}

	/**
	 * The session timeout of the application's client and of every participant; on a
	 * plain class also of the server's tick (a tenth of it). Between 200 ms and 20 s.
	 * @param sessionTimeout the session timeout
	 * @return this kit
	 */
	public ZkLockTestKit sessionTimeout(Duration sessionTimeout) {
		if (sessionTimeout.compareTo(Duration.ofMillis(200)) < 0
				|| sessionTimeout.compareTo(Duration.ofSeconds(20)) > 0) {
			throw new IllegalArgumentException(
					"The kit's session timeout must be between 200 ms and 20 s, but was " + sessionTimeout);
		}
		this.sessionTimeout = sessionTimeout;
		return this;
	}

	/**
	 * How long every wait of the kit lasts at most: its faults waiting for the
	 * application to notice, its assertions waiting for ZooKeeper to agree, its hooks
	 * waiting to fire.
	 * @param timeout the bound, at least 1 s
	 * @return this kit
	 */
	public ZkLockTestKit timeout(Duration timeout) {
		if (timeout.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException("The kit's timeout must be at least 1 s, but was " + timeout);
		}
		this.timeout = timeout;
		return this;
	}

	/**
	 * Run the kit's server in a Docker container of an official {@code zookeeper} image,
	 * through Testcontainers (which the test class path must have), instead of in the
	 * test's JVM: the same faults, behind the same proxy. Without a Docker engine, each
	 * test of the class is skipped (aborted), as Testcontainers' own
	 * {@code disabledWithoutDocker} does.
	 * @param image the image, {@code zookeeper:3.9} say
	 * @return this kit
	 */
	public ZkLockTestKit inContainer(String image) {
		this.image = Objects.requireNonNull(image, "image must not be null");
		return this;
	}

	/**
	 * The options of the registry a plain test class gets from {@link #registry()}; a
	 * Spring application keeps its own.
	 * @param options the options
	 * @return this kit
	 */
	public ZkLockTestKit options(ZkLockOptions options) {
		this.options = Objects.requireNonNull(options, "options must not be null");
		return this;
	}

	// ---- where and who

	/**
	 * Where the application connects: the kit's fault proxy in front of its server.
	 * @return the connect string
	 */
	public String connectString() {
		return server().connectString();
	}

	/**
	 * The session timeout the application and the participants ask for.
	 * @return the session timeout
	 */
	public Duration sessionTimeout() {
		return this.sessionTimeout;
	}

	/**
	 * The application's registry: the Spring application context's, or on a plain class
	 * one of the test's, connected through the proxy, on a session of its own, closed
	 * after the test. The faults of this kit are aimed at its client.
	 * @return the registry
	 * @throws IllegalStateException outside a test, or if the application context has no
	 * {@link ZkLockRegistry}
	 */
	public synchronized ZkLockRegistry registry() {
		ZkLockRegistry registry = this.application;
		if (registry == null) {
			ExtensionContext context = currentTest("registry()");
			Function<ExtensionContext, ZkLockRegistry> springRegistry = this.springRegistry;
			if (springRegistry != null) {
				registry = springRegistry.apply(context);
			}
			else {
				CuratorFramework client = KitServer.newClient(connectString(), this.sessionTimeout);
				this.closeAfterTest.add(client);
				awaitConnected(client, "the application's client");
				registry = new ZkLockRegistry(client, this.options);
				this.closeAfterTest.add(registry);
			}
			registry.addListener(this.events);
			this.application = registry;
		}
		return registry;
	}

	/**
	 * Test a registry of your own as the application, from now on in this test: one that
	 * an {@code ApplicationContextRunner}'s context made, say (a test that starts a
	 * second context may call it again for the second one). Its client must connect to
	 * {@link #connectString()} for the faults to reach it, and should ask for the kit's
	 * {@link #sessionTimeout()}: the kit's server grants sessions of at most twice it.
	 * The kit listens to the registry and does not close it.
	 * @param registry the registry
	 * @return the registry
	 * @throws IllegalStateException if the registry's client does not connect through the
	 * kit
	 */
	public synchronized ZkLockRegistry useApplication(ZkLockRegistry registry) {
		currentTest("useApplication(registry)");
		String connectString = registry.getClient().getZookeeperClient().getCurrentConnectionString();
		if (!connectString.equals(connectString()) && !connectString.startsWith(connectString() + "/")) {
			throw new IllegalStateException("The registry connects to " + connectString
					+ ", not through the kit: set its connect string to zk.connectString() (" + connectString()
					+ ") so that the kit's faults reach it");
		}
		ZkLockRegistry previous = this.application;
		if (previous != registry) {
			if (previous != null) {
				previous.removeListener(this.events);
			}
			registry.addListener(this.events);
			this.application = registry;
			this.observer = null;
		}
		return registry;
	}

	/**
	 * Another instance of the application, for the same test: a registry with the
	 * application's options on a client and session of its own, connected to the server
	 * directly, so that no fault of this kit reaches it. Closed after the test.
	 * @return a started, connected registry
	 */
	public ZkLockRegistry newParticipant() {
		ZkLockOptions appOptions = registry().getOptions();
		CuratorFramework client = KitServer.newClient(server().serverConnectString(), this.sessionTimeout);
		this.closeAfterTest.add(client);
		awaitConnected(client, "a participant's client");
		String namespace = registry().getClient().getNamespace();
		ZkLockRegistry participant = new ZkLockRegistry(
				(namespace != null && !namespace.isEmpty()) ? client.usingNamespace(namespace) : client, appOptions);
		this.closeAfterTest.add(participant);
		return participant;
	}

	// ---- faults aimed at the application's client

	/**
	 * Expire the application's session on the server, as a session timeout there would:
	 * ZooKeeper deletes its nodes at once and any participant may take its keys. Returns
	 * once the application has heard of it (its connection {@code LOST}, every lease it
	 * held {@code LOST}).
	 * @throws AssertionError if the application did not hear of it within the timeout
	 */
	public void expireSession() {
		ZkLockRegistry registry = registry();
		long losses = this.events.sessionLosses();
		expireOnServer(registry);
		await("the application's client to hear that its session expired", () -> this.events.sessionLosses() > losses);
	}

	/**
	 * Drop the application's connection and refuse it for a while, as a server or network
	 * that goes away and comes back: the client notices at once (its connection
	 * {@code SUSPENDED}, its leases {@code UNCERTAIN}) and tries again until the cut
	 * ends. Whether its session survives is ZooKeeper's rule: the server expires it once
	 * it has heard nothing for the session timeout, counted from the client's last ping
	 * (up to a third of the session before the cut), and ZooKeeper's client waits up to 1
	 * s before each reconnection. So a cut longer than the session timeout always ends
	 * {@code LOST}; one shorter than the session timeout less about 1.5 s and a third of
	 * it comes back {@code RECONNECTED} (with a 5 s session, a cut of up to 1.5 s); in
	 * between, either. Returns once the application has heard which.
	 * @param duration how long the connection stays cut
	 * @return the application's connection state once the cut ended: {@code RECONNECTED}
	 * or {@code LOST}
	 */
	public ConnectionState cutConnection(Duration duration) {
		registry();
		long before = this.events.stateChanges();
		long cutAt = System.nanoTime();
		server().proxy().refuse(true);
		await("the application's client to notice its connection was dropped (SUSPENDED)",
				() -> this.events.anySince(before, ConnectionState.SUSPENDED, ConnectionState.LOST));
		awaitElapsed(cutAt, duration);
		long mended = this.events.stateChanges();
		server().proxy().refuse(false);
		await("the application's client to reconnect or hear its session expired",
				() -> this.events.anySince(mended, ConnectionState.RECONNECTED, ConnectionState.LOST));
		// Curator tells LOST as the session times out (during the cut, by its own clock,
		// or
		// on reconnecting), then RECONNECTED on a new session
		return this.events.anySince(before, ConnectionState.LOST) ? ConnectionState.LOST : ConnectionState.RECONNECTED;
	}

	/**
	 * Drop the application's connection and refuse it until {@link #heal()} (or the end
	 * of the test), as a server or network that goes away: returns once the application
	 * has noticed ({@code SUSPENDED}), so that a test can look at it while it is cut off.
	 * The session expires on the server after the session timeout.
	 */
	public void disconnect() {
		registry();
		long before = this.events.stateChanges();
		server().proxy().refuse(true);
		await("the application's client to notice its connection was dropped (SUSPENDED)",
				() -> this.events.anySince(before, ConnectionState.SUSPENDED, ConnectionState.LOST));
	}

	/**
	 * Lose every byte between the application and the server until {@link #heal()} (or
	 * the end of the test), the connection left open: the client notices only by its own
	 * timeouts (two thirds of the session without a reply), and the server expires the
	 * session after the session timeout.
	 */
	public void blackholeConnection() {
		registry();
		server().proxy().blackhole(true);
	}

	/**
	 * Hold back every reply to the application, and its requests, for a while, then
	 * deliver them in order: a slow network or a stalled server. Returns at once.
	 * @param delay how long
	 */
	public void delayReplies(Duration delay) {
		registry();
		server().proxy().stall(delay);
	}

	/**
	 * Let the application's next request of an operation under its lock root reach the
	 * server, lose the reply and drop the connection: ZooKeeper applied it and the client
	 * never learns the outcome (a create whose node exists, say). The client reconnects
	 * at once, on the same session.
	 * @param opCode the operation, a {@link org.apache.zookeeper.ZooDefs.OpCode} constant
	 * ({@code OpCode.create2} for a lock node)
	 */
	public void dropNextReply(int opCode) {
		server().proxy().loseNextReplyTo(opCode, serverPath(registry().getOptions().rootPath()) + "/", Duration.ZERO);
	}

	/**
	 * Stop the ZooKeeper server: every client is cut off until {@link #restartServer()}
	 * (or the end of the test). Returns once the application's client has noticed (its
	 * connection {@code SUSPENDED}). Sessions survive a restart within their timeout.
	 * @throws IllegalStateException if the kit's server could not be stopped
	 */
	public void stopServer() {
		// Before the application exists (to start it while ZooKeeper is down), nothing
		// is there to notice
		boolean application = this.application != null || this.spring;
		if (application) {
			registry();
		}
		long before = this.events.stateChanges();
		try {
			server().stop();
		}
		catch (Exception ex) {
			throw new IllegalStateException("The kit's ZooKeeper server did not stop", ex);
		}
		if (application) {
			await("the application's client to notice the server stopped (SUSPENDED)",
					() -> this.events.anySince(before, ConnectionState.SUSPENDED, ConnectionState.LOST));
		}
	}

	/**
	 * Start the server again, on the same port with the same data, after
	 * {@link #stopServer()}; returns once the application is connected again.
	 */
	public void restartServer() {
		try {
			server().restart();
		}
		catch (Exception ex) {
			throw new IllegalStateException("The kit's ZooKeeper server did not start again", ex);
		}
		if (this.application != null || this.spring) {
			await("the application's client to be connected again after the restart", () -> isConnected(registry()));
		}
	}

	/**
	 * Delete the node that holds a key, as another client (an operator, a cleanup job)
	 * would. The application hears of it only where it watches its node (a method with
	 * {@code onLost = INTERRUPT} or a revocable lock); ZooKeeper gives the key to the
	 * next in line at once.
	 * @param key the key: the node deleted is the first in its queue (an exclusive lock's
	 * holder, a read/write lock's first node); not a semaphore's lease nor a leader's
	 * node
	 * @throws AssertionError if nobody holds the key
	 */
	public void deleteHeldNode(String key) {
		Participant holder = holder(key);
		if (holder == null) {
			throw new AssertionError("Cannot delete the node holding '" + key + "': nobody holds it (its queue at "
					+ registry().lockPath(key) + " is empty)");
		}
		try {
			server().admin().delete().forPath(serverPath(registry().lockPath(key) + "/" + holder.node()));
		}
		catch (KeeperException.NoNodeException ex) {
			throw new AssertionError("The node holding '" + key + "' was released before it could be deleted");
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not delete the node holding '" + key + "'", ex);
		}
	}

	/**
	 * Pause the application while it holds a key, as a long GC pause would, and let
	 * another instance act meanwhile: its connection is cut, its session expired on the
	 * server, and once ZooKeeper has deleted its node {@code whilePaused} runs (take the
	 * key with a {@link #newParticipant() participant} and write, say). Then the
	 * application resumes as a paused JVM does: its threads go on at once, still
	 * believing they hold the key, and its client hears of the expiry only when it
	 * reconnects. Call it from a hook on the holder's own thread,
	 * {@code onAcquired(key, () -> zk.pauseHolder(key, ...))}, to pause it inside its
	 * locked work.
	 * @param key the key the application holds
	 * @param whilePaused what happens while it is paused
	 * @throws AssertionError if the application does not hold the key
	 */
	public void pauseHolder(String key, ThrowingRunnable whilePaused) {
		ZkLockRegistry registry = registry();
		long session = sessionOf(registry);
		Participant holder = holder(key);
		if (holder == null || holder.sessionId() != session) {
			throw new AssertionError(
					"Cannot pause the holder of '"
							+ key + "': the application does not hold it (" + ((holder != null)
									? "held by session 0x" + Long.toHexString(holder.sessionId()) : "nobody holds it")
							+ ")");
		}
		server().proxy().blackhole(true);
		try {
			expireOnServer(registry);
			await("ZooKeeper to delete the paused holder's node of '" + key + "'", () -> {
				Participant now = holder(key);
				return now == null || now.sessionId() != session;
			});
			whilePaused.run();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException("What ran while the holder of '" + key + "' was paused failed", ex);
		}
		finally {
			server().proxy().blackhole(false);
		}
	}

	/**
	 * Lift every fault: the proxy passes everything again and a stopped server is started
	 * again. Done after each test anyway.
	 */
	public void heal() {
		KitServer server = server();
		server.proxy().heal();
		try {
			server.restart();
		}
		catch (Exception ex) {
			throw new IllegalStateException("The kit's ZooKeeper server did not start again", ex);
		}
	}

	// ---- hooks and assertions

	/**
	 * Run an action on the application's thread that acquires a key, once it holds it and
	 * before the acquiring call returns: inside the locked window, before the locked
	 * method's body runs, with no sleep. One-shot. Typical actions are this kit's faults:
	 * {@code zk.onAcquired("order:1", zk::expireSession)}. The action's failure fails the
	 * test; a hook that has not fired by the end of the test fails it too.
	 * @param key the key
	 * @param action what to do
	 * @return the hook, to wait for
	 */
	public Hook onAcquired(String key, ThrowingRunnable action) {
		registry();
		Hook hook = new Hook(key, action, this.timeout);
		this.events.add(hook);
		return hook;
	}

	/**
	 * Assertions on a key as ZooKeeper has it, each waiting up to the timeout for
	 * ZooKeeper to agree.
	 * @param key the key
	 * @return the assertions
	 */
	public KeyAssert assertThatKey(String key) {
		return new KeyAssert(this, key);
	}

	/**
	 * Assert that no lock node is left under the application's lock root: every lock
	 * released, no waiter left behind. Waits up to the timeout for releases in flight.
	 * @throws AssertionError naming the nodes left
	 */
	public void assertNoNodesLeft() {
		String root = registry().getOptions().rootPath();
		List<String> left = new ArrayList<>();
		awaitQuietly(() -> {
			left.clear();
			collectEphemeral(root, left);
			return left.isEmpty();
		});
		if (!left.isEmpty()) {
			throw new AssertionError(
					"Lock nodes left under " + root + " after " + this.timeout.toSeconds() + " s: " + left);
		}
	}

	// ---- JUnit

	/**
	 * A plain test class's server starts here, before its tests and their timeouts; a
	 * Spring test class's when its application context is made.
	 */
	@Override
	public void beforeAll(ExtensionContext context) {
		if (this.ownServer == null && !isSpringTest(context.getRequiredTestClass())
				&& (this.image == null || ServerControl.isDockerAvailable())) {
			this.ownServer = KitServer.start(this.sessionTimeout, this.image);
		}
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.image != null) {
			Assumptions.assumeTrue(ServerControl.isDockerAvailable(),
					() -> "No Docker engine for the kit's ZooKeeper container " + this.image);
		}
		if (of(context.getRequiredTestClass()) != this) {
			throw new IllegalStateException("ZkLockTestKit must be registered on a static field "
					+ "(@RegisterExtension static ZkLockTestKit zk = ZkLockTestKit.create()), so that an application "
					+ "context can be pointed at it before the test instance is made");
		}
		if (!this.spring && isSpringTest(context.getRequiredTestClass())) {
			throw new IllegalStateException("The application context of " + context.getRequiredTestClass().getName()
					+ " was not pointed at this kit: is spring-test's ContextCustomizerFactory of zk-lock-test found "
					+ "(META-INF/spring.factories), and the kit a static field of the test class?");
		}
		this.test = context;
	}

	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		List<Throwable> failures = new ArrayList<>();
		try {
			failures.addAll(this.events.hookFailures());
			KitServer server = (this.spring || this.ownServer != null) ? server() : null;
			if (server != null) {
				heal();
				if (this.application != null && this.spring) {
					ZkLockRegistry registry = this.application;
					// The next test starts with the application connected, as a new one
					// would
					awaitQuietly(() -> isConnected(registry));
				}
			}
		}
		finally {
			if (this.application != null) {
				this.application.removeListener(this.events);
			}
			this.events.clear();
			for (int i = this.closeAfterTest.size() - 1; i >= 0; i--) {
				try {
					this.closeAfterTest.get(i).close();
				}
				catch (Exception ex) {
					// best effort
				}
			}
			this.closeAfterTest.clear();
			this.application = null;
			this.observer = null;
			this.test = null;
		}
		if (!failures.isEmpty()) {
			AssertionError error = new AssertionError(failures.get(0).getMessage(), failures.get(0));
			failures.stream().skip(1).forEach(error::addSuppressed);
			throw error;
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		KitServer server = this.ownServer;
		this.ownServer = null;
		if (server != null) {
			server.close();
		}
	}

	/**
	 * Point a Spring application at this kit: from now on the kit uses the server shared
	 * by every Spring test class of the JVM.
	 * @return the application's connect string
	 */
	String attachSpringApplication(Function<ExtensionContext, ZkLockRegistry> registry) {
		this.springRegistry = registry;
		this.spring = true;
		return connectString();
	}

	// ---- for the kit's classes

	Duration timeout() {
		return this.timeout;
	}

	ApplicationEvents events() {
		return this.events;
	}

	/** The participant holding a key, as the kit's own client reads it; null if none. */
	@Nullable Participant holder(String key) {
		List<Participant> queue = queue(key);
		return queue.isEmpty() ? null : queue.get(0);
	}

	/** The key's queue, holder first, as the kit's own client reads it. */
	List<Participant> queue(String key) {
		try {
			return observer().participants(key);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException("The kit could not read the queue of '" + key + "'", ex);
		}
	}

	long applicationSession() {
		return sessionOf(registry());
	}

	/**
	 * Whether a registry has heard that it is connected: it tells its listeners on the
	 * thread that updates this, so no connection event of the past is still to come.
	 */
	private static boolean isConnected(ZkLockRegistry registry) {
		ConnectionState state = registry.connectionStatus().state();
		return state != null && state.isConnected();
	}

	/** The current session of a registry's client. */
	static long sessionOf(ZkLockRegistry registry) {
		try {
			return registry.getClient().getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			throw new IllegalStateException("The registry's client has no ZooKeeper handle", ex);
		}
	}

	/** Wait up to the timeout; fail naming what was awaited. */
	void await(String what, Condition condition) {
		if (!awaitQuietly(condition)) {
			throw new AssertionError("Waited " + this.timeout.toMillis() + " ms for " + what);
		}
	}

	/** Wait up to the timeout; whether the condition came true. */
	boolean awaitQuietly(Condition condition) {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		while (true) {
			try {
				if (condition.met()) {
					return true;
				}
			}
			catch (Exception ex) {
				// not yet: a read while the connection comes back, say
			}
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting", ex);
			}
		}
	}

	private synchronized ZkLockRegistry observer() {
		ZkLockRegistry observer = this.observer;
		if (observer == null) {
			ZkLockRegistry application = registry();
			String namespace = application.getClient().getNamespace();
			CuratorFramework admin = server().admin();
			observer = new ZkLockRegistry(
					(namespace != null && !namespace.isEmpty()) ? admin.usingNamespace(namespace) : admin,
					application.getOptions());
			this.closeAfterTest.add(observer);
			this.observer = observer;
		}
		return observer;
	}

	/**
	 * A path of the application's as the server has it, and as its requests carry it:
	 * under its client's namespace, which the kit's own client does not have.
	 */
	private String serverPath(String path) {
		String namespace = registry().getClient().getNamespace();
		return (namespace != null && !namespace.isEmpty()) ? ZKPaths.fixForNamespace(namespace, path) : path;
	}

	private void collectEphemeral(String path, List<String> into) throws Exception {
		CuratorFramework admin = server().admin();
		String namespace = registry().getClient().getNamespace();
		CuratorFramework client = (namespace != null && !namespace.isEmpty()) ? admin.usingNamespace(namespace) : admin;
		Stat stat = client.checkExists().forPath(path);
		if (stat == null) {
			return;
		}
		if (stat.getEphemeralOwner() != 0) {
			into.add(path);
			return;
		}
		for (String child : client.getChildren().forPath(path)) {
			collectEphemeral(path + "/" + child, into);
		}
	}

	private void expireOnServer(ZkLockRegistry registry) {
		ZooKeeper zooKeeper;
		try {
			zooKeeper = registry.getClient().getZookeeperClient().getZooKeeper();
		}
		catch (Exception ex) {
			throw new IllegalStateException("The application's client has no ZooKeeper handle", ex);
		}
		try {
			long expired = ServerSideExpiry.expire(server().serverConnectString(), zooKeeper.getSessionId(),
					zooKeeper.getSessionPasswd(), (int) this.sessionTimeout.toMillis(), this.timeout, () -> {
					});
			if (expired == 0) {
				throw new AssertionError(
						"Could not expire the application's session 0x" + Long.toHexString(zooKeeper.getSessionId())
								+ " on the server within " + this.timeout.toMillis() + " ms");
			}
		}
		catch (AssertionError ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not expire the application's session on the server", ex);
		}
	}

	private void awaitConnected(CuratorFramework client, String what) {
		try {
			if (!client.blockUntilConnected((int) this.timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(
						what + " did not connect to the kit's ZooKeeper within " + this.timeout.toMillis() + " ms");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while " + what + " connected", ex);
		}
	}

	private void awaitElapsed(long sinceNanos, Duration duration) {
		long remaining = duration.toNanos() - (System.nanoTime() - sinceNanos);
		if (remaining > 0) {
			try {
				TimeUnit.NANOSECONDS.sleep(remaining);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while the connection was cut", ex);
			}
		}
	}

	private KitServer server() {
		if (this.spring) {
			synchronized (SHARED_LOCK) {
				String image = this.image;
				String key = ((image != null) ? image : "") + "@" + this.sessionTimeout;
				KitServer server = SHARED.get(key);
				if (server == null) {
					KitServer started = KitServer.start(this.sessionTimeout, image);
					Runtime.getRuntime().addShutdownHook(new Thread(started::close, "zk-lock-test-shutdown"));
					SHARED.put(key, started);
					server = started;
				}
				return server;
			}
		}
		KitServer server = this.ownServer;
		if (server == null) {
			currentTest("the kit's server");
			server = KitServer.start(this.sessionTimeout, this.image);
			this.ownServer = server;
		}
		return server;
	}

	private ExtensionContext currentTest(String what) {
		ExtensionContext context = this.test;
		if (context == null) {
			throw new IllegalStateException(what + " is only available while a test runs, with the kit registered: "
					+ "@RegisterExtension static ZkLockTestKit zk = ZkLockTestKit.create()");
		}
		return context;
	}

	/**
	 * The static kit field of a test class (or of a class enclosing it), as JUnit
	 * registers it; null if it has none.
	 */
	static @Nullable ZkLockTestKit of(Class<?> testClass) {
		for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
			for (Class<?> level = type; level != null && level != Object.class; level = level.getSuperclass()) {
				for (Field field : level.getDeclaredFields()) {
					if (field.getType() == ZkLockTestKit.class && Modifier.isStatic(field.getModifiers())) {
						try {
							field.setAccessible(true);
							Object kit = field.get(null);
							if (kit != null) {
								return (ZkLockTestKit) kit;
							}
						}
						catch (ReflectiveOperationException | RuntimeException ex) {
							// not readable: look on
						}
					}
				}
			}
		}
		return null;
	}

	/** Whether Spring's extension runs the test class (by name: Spring is optional). */
	private static boolean isSpringTest(Class<?> testClass) {
		return AnnotationSupport.findRepeatableAnnotations(testClass, ExtendWith.class)
			.stream()
			.flatMap((extendWith) -> Arrays.stream(extendWith.value()))
			.anyMatch((extension) -> extension.getName()
				.equals("org.springframework.test.context.junit.jupiter.SpringExtension"));
	}

	/** A condition the kit waits for. */
	@FunctionalInterface
	interface Condition {

		boolean met() throws Exception;

	}

	/**
	 * An action of a test that may throw: a hook's action, what happens while a holder is
	 * paused.
	 */
	@FunctionalInterface
	public interface ThrowingRunnable {

		/**
		 * Run the action.
		 * @throws Throwable whatever it throws, which fails the test
		 */
		void run() throws Throwable;

	}

}
