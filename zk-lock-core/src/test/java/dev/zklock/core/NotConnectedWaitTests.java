package dev.zklock.core;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every wait is bounded in every connection state (issue 34, item 3): while the client is
 * not connected, a zero wait fails at once, naming the connection's state, whatever the
 * recipe or entry point, instead of taking the client's connection timeout; a timed wait
 * ends within its bound. Clients never connected (a closed port), suspended, and lost and
 * reconnecting (through a {@link ZkFaultProxy} that refuses connections).
 */
@Timeout(120)
class NotConnectedWaitTests {

	/**
	 * The connection timeout of the clients here, Spring Boot's default: what a zero wait
	 * took before.
	 */
	private static final int CONNECTION_TIMEOUT_MS = 15_000;

	/** "At once", allowing for a loaded machine; a quiet run takes a few milliseconds. */
	private static final long AT_ONCE_MS = 1_000;

	/**
	 * How late a timed wait may end on a loaded machine; a quiet run overshoots by less
	 * than 100 ms.
	 */
	private static final long LATE_MS = 1_000;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
	}

	@TimingSensitive
	@Test
	void zeroWaitsFailAtOnceNamingTheStateWhenNeverConnected() throws Exception {
		int port = closedPort();
		ZkLockRegistry registry = registry(client("127.0.0.1:" + port, 30_000, false));
		for (Call call : calls(registry)) {
			long start = System.nanoTime();
			LockAcquisitionException failure = call.attempt(Duration.ZERO);
			long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(elapsedMs).as("%s with a zero wait, never connected: ms", call.name()).isLessThan(AT_ONCE_MS);
			assertNotConnected(call, failure, "NEVER_CONNECTED", "connect string 127.0.0.1:" + port);
		}
		ZkLock lock = registry.obtain("one-attempt");
		for (ZkLock oneAttempt : List.of(lock, registry.obtainReadWrite("one-attempt").readLock(),
				registry.obtainReadWrite("one-attempt").writeLock(), registry.obtainAll(List.of("a", "b")))) {
			long start = System.nanoTime();
			assertThat(oneAttempt.tryLock()).isFalse();
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("tryLock() of %s", oneAttempt)
				.isLessThan(AT_ONCE_MS);
		}
		// Reads nobody gave a wait for fail at once too
		long start = System.nanoTime();
		assertThatExceptionOfType(KeeperException.ConnectionLossException.class)
			.isThrownBy(() -> registry.participants("one-attempt"))
			.withMessageContaining("NEVER_CONNECTED");
		assertThatExceptionOfType(KeeperException.ConnectionLossException.class)
			.isThrownBy(() -> registry.requestRevocation("one-attempt"))
			.withMessageContaining("NEVER_CONNECTED");
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.obtainSemaphore("one-attempt", 2).availablePermits())
			.withMessageContaining("NEVER_CONNECTED")
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.NOT_CONNECTED));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3 * AT_ONCE_MS);
		assertThat(registry.size()).isZero();
	}

	@TimingSensitive
	@Test
	void timedWaitsEndWithinTheirBoundWhenNeverConnected() throws Exception {
		ZkLockRegistry registry = registry(client("127.0.0.1:" + closedPort(), 30_000, false));
		long maxLateMs = 0;
		for (Call call : calls(registry)) {
			long start = System.nanoTime();
			LockAcquisitionException failure = call.attempt(Duration.ofMillis(300));
			long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(elapsedMs).as("%s with a 300 ms wait, never connected: ms", call.name())
				.isBetween(299L, 300 + LATE_MS);
			maxLateMs = Math.max(maxLateMs, elapsedMs - 300);
			assertNotConnected(call, failure, "NEVER_CONNECTED", "connect string");
		}
		System.err.println("[measure] 300 ms waits of every path, never connected: latest " + maxLateMs + " ms late");
	}

	/**
	 * The figures for the report: per-call times of a zero wait and of a 2 s wait while
	 * ZooKeeper is down.
	 */
	@TimingSensitive
	@Test
	void zeroAndTwoSecondWaitsWhileZooKeeperIsDown() throws Exception {
		ZkLockRegistry registry = registry(client("127.0.0.1:" + closedPort(), 30_000, false));
		ZkLock lock = registry.obtain("down");
		List<Long> zero = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			zero.add(timeFailed(lock, Duration.ZERO));
		}
		List<Long> two = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			two.add(timeFailed(lock, Duration.ofSeconds(2)));
		}
		System.err.println("[measure] ZooKeeper down (closed port, connection timeout " + CONNECTION_TIMEOUT_MS
				+ " ms): zero wait " + zero + " ms, 2 s wait " + two + " ms");
		assertThat(zero).allSatisfy((ms) -> assertThat(ms).isLessThan(AT_ONCE_MS));
		assertThat(two).allSatisfy((ms) -> assertThat(ms).isBetween(1_999L, 2_000 + LATE_MS));
	}

	@TimingSensitive
	@Test
	void zeroWaitsFailAtOnceNamingTheStateWhenSuspendedAndWhenLost() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = client(proxy.connectString(), (int) InProcessZooKeeper.SESSION_TIMEOUT.toMillis(),
				true);
		ZkLockRegistry registry = registry(client);
		ZkLock lock = registry.obtain("outage");
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		proxy.refuse(true);
		eventually()
			.untilAsserted(() -> assertThat(registry.connectionStatus().state()).isEqualTo(ConnectionState.SUSPENDED));
		for (Call call : calls(registry)) {
			long start = System.nanoTime();
			LockAcquisitionException failure = call.attempt(Duration.ZERO);
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
				.as("%s with a zero wait, suspended: ms", call.name())
				.isLessThan(AT_ONCE_MS);
			assertNotConnected(call, failure, "the connection is SUSPENDED since ", proxy.connectString());
		}
		assertThat(timeFailed(lock, Duration.ofMillis(500))).isBetween(499L, 500 + LATE_MS);
		// Curator declares the session lost once suspended for the session timeout; the
		// client goes on trying on a new one
		withinAMinute()
			.untilAsserted(() -> assertThat(registry.connectionStatus().state()).isEqualTo(ConnectionState.LOST));
		for (Call call : calls(registry)) {
			long start = System.nanoTime();
			LockAcquisitionException failure = call.attempt(Duration.ZERO);
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
				.as("%s with a zero wait, lost: ms", call.name())
				.isLessThan(AT_ONCE_MS);
			assertNotConnected(call, failure, "the session was LOST", "reconnecting");
		}
		assertThat(timeFailed(lock, Duration.ofMillis(500))).isBetween(499L, 500 + LATE_MS);
		proxy.refuse(false);
		assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
	}

	/**
	 * A client that never connected has no session to lose: when Curator reports LOST for
	 * it, the log says it never connected, and the status stays "never connected".
	 */
	@Test
	void aClientThatNeverConnectedSaysSoAndLosesNoSession() throws Exception {
		CuratorFramework client = client("127.0.0.1:" + closedPort(), 2_000, false);
		CountDownLatch lost = new CountDownLatch(1);
		String log = capturingStandardError(() -> {
			ZkLockRegistry registry = registry(client);
			registry.addListener(new ZkLockListener() {
				@Override
				public void connectionStateChanged(ConnectionState state) {
					if (state == ConnectionState.LOST) {
						lost.countDown();
					}
				}
			});
			assertThat(lost.await(60, TimeUnit.SECONDS)).as("Curator's LOST").isTrue();
			assertThat(registry.connectionStatus().state()).isNull();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry.obtain("never").acquire(Duration.ZERO))
				.withMessageContaining("not connected: NEVER_CONNECTED, the client has not connected to ZooKeeper");
		});
		List<String> lines = log.lines().filter((line) -> line.contains("dev.zklock")).toList();
		assertThat(lines).as("zk-lock's lines:%n%s", log)
			.noneMatch((line) -> line.contains("session LOST"))
			.noneMatch((line) -> line.contains("SUSPENDED"))
			.anyMatch((line) -> line.contains("ZooKeeper connection NEVER_CONNECTED (connect string 127.0.0.1:"))
			.anyMatch((line) -> line.contains("ZooKeeper connection still NEVER_CONNECTED")
					&& line.contains("no session was ever established, so none was lost"));
	}

	/**
	 * Up to a minute: a session timeout, then Curator's own check.
	 */
	private static ConditionFactory withinAMinute() {
		return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20));
	}

	private static long timeFailed(ZkLock lock, Duration wait) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> lock.acquire(wait))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.NOT_CONNECTED));
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

	/**
	 * Assert that a call failed for want of a connection, naming it, unless it could only
	 * say {@code false}.
	 */
	private static void assertNotConnected(Call call, @Nullable LockAcquisitionException failure, String... sayings) {
		if (call.name().startsWith("ZkLock.tryLock")) {
			return;
		}
		assertThat(failure).as(call.name()).isNotNull();
		assertThat(failure.getReason()).as("%s: %s", call.name(), failure.getMessage()).isEqualTo(Reason.NOT_CONNECTED);
		assertThat(failure.getMessage()).as(call.name()).contains(sayings);
	}

	/**
	 * Every entry point of the engine that takes a wait.
	 */
	private static List<Call> calls(ZkLockRegistry registry) {
		return List.of(
				new Call("ZkLock.acquire", (wait) -> registry.obtain("m").acquire(wait)),
				new Call(
						"ZkLock.tryLock(time)",
						(wait) -> assertThat(registry.obtain("m").tryLock(wait.toMillis(), TimeUnit.MILLISECONDS))
							.isFalse()),
				new Call("acquireLease", (wait) -> registry.acquireLease("lease", wait)),
				new Call("executeLocked", (wait) -> registry.executeLocked("run", wait, () -> fail("ran unlocked"))),
				new Call("read lock", (wait) -> registry.obtainReadWrite("rw").readLock().acquire(wait)),
				new Call("write lock", (wait) -> registry.obtainReadWrite("rw").writeLock().acquire(wait)),
				new Call("semaphore acquire", (wait) -> registry.obtainSemaphore("pool", 2).acquire(wait)),
				new Call("semaphore tryAcquire", (wait) -> registry.obtainSemaphore("pool", 2).tryAcquire(wait)),
				new Call("several keys", (wait) -> registry.obtainAll(List.of("a", "b")).acquire(wait)),
				new Call("several keys' write locks",
						(wait) -> registry.obtainAllReadWrite(List.of("a", "b")).writeLock().acquire(wait)));
	}

	@FunctionalInterface
	private interface Attempt {

		void run(Duration wait) throws Exception;

	}

	/**
	 * One way to wait for a lock, which must fail: by a {@link LockAcquisitionException},
	 * returned, or by returning {@code false}, asserted by the attempt itself.
	 */
	private record Call(String name, Attempt call) {

		@Nullable LockAcquisitionException attempt(Duration wait) throws Exception {
			try {
				this.call.run(wait);
				return null;
			}
			catch (LockAcquisitionException ex) {
				return ex;
			}
		}

	}

	private CuratorFramework client(String connectString, int sessionTimeoutMs, boolean awaitConnection)
			throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(sessionTimeoutMs)
			.connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		this.closeables.add(client);
		if (awaitConnection) {
			assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		}
		return client;
	}

	private ZkLockRegistry registry(CuratorFramework client) {
		ZkLockRegistry registry = new ZkLockRegistry(client);
		this.closeables.add(registry);
		return registry;
	}

	private static int closedPort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	@FunctionalInterface
	private interface Block {

		void run() throws Exception;

	}

	private static String capturingStandardError(Block block) throws Exception {
		PrintStream original = System.err;
		ByteArrayOutputStream captured = new ByteArrayOutputStream();
		System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
		try {
			block.run();
		}
		finally {
			System.setErr(original);
		}
		String log = captured.toString(StandardCharsets.UTF_8);
		original.print(log);
		return log;
	}

}
