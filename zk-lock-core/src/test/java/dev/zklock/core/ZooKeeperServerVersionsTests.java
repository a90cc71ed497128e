package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine, on the ZooKeeper client this build ships, against real servers of the
 * versions the compatibility table names, each in a JVM of its own: the 3.8 line (whose
 * jars the build copies into {@code target/}) and this build's 3.9. Lock and unlock, two
 * registries (two sessions) contending for one key, and a session that the server expires
 * while the client cannot reach it.
 */
@Timeout(120)
class ZooKeeperServerVersionsTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	@TempDir
	Path dir;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final ExecutorService secondThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void close() throws Exception {
		this.secondThread.shutdownNow();
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
	}

	static Stream<Arguments> servers() throws Exception {
		Path jars = Path.of(property("zklock.test.zookeeper38.dir"));
		List<Path> zookeeper38;
		try (Stream<Path> files = Files.list(jars)) {
			zookeeper38 = files.filter((file) -> file.toString().endsWith(".jar")).sorted().toList();
		}
		assertThat(zookeeper38).as("ZooKeeper 3.8 jars the build copied to %s", jars).hasSize(2);
		return Stream.of(Arguments.of(property("zklock.test.zookeeper38.version"), zookeeper38),
				Arguments.of(property("zklock.test.zookeeper.version"), List.of()));
	}

	@ParameterizedTest(name = "ZooKeeper {0} server")
	@MethodSource("servers")
	void lockContentionAndSessionExpiry(String serverVersion, List<Path> serverJars) throws Exception {
		ZooKeeperServerJvm server = ZooKeeperServerJvm.start(serverJars, this.dir);
		this.closeables.add(server);
		assertThat(server.version()).as("the server's own word").startsWith(serverVersion + "-");
		assertThat(Version.getFullVersion()).as("the client's version")
			.startsWith(property("zklock.test.zookeeper.version") + "-");
		ZkFaultProxy proxy = ZkFaultProxy.start("127.0.0.1", server.port());
		this.closeables.add(proxy);
		ZkLockRegistry first = registry(proxy.connectString());
		ZkLockRegistry second = registry(server.connectString());
		CuratorFramework observer = second.getClient();

		// Lock and unlock: one node while held, none after
		ZkLock lock = first.obtain("compat");
		lock.lock();
		long firstToken = lock.fencingToken();
		assertThat(observer.getChildren().forPath("/locks/compat")).hasSize(1);
		lock.unlock();
		eventually().untilAsserted(() -> assertThat(observer.getChildren().forPath("/locks/compat")).isEmpty());

		// Contention: the other session cannot take the key while it is held, and takes
		// it once released
		lock.lock();
		ZkLock other = second.obtain("compat");
		assertThat(onSecondThread(() -> other.tryLock(300, TimeUnit.MILLISECONDS))).isFalse();
		Future<Long> waiter = this.secondThread.submit(() -> {
			if (!other.tryLock(30, TimeUnit.SECONDS)) {
				return -1L;
			}
			try {
				return other.fencingToken();
			}
			finally {
				other.unlock();
			}
		});
		eventually().untilAsserted(() -> assertThat(observer.getChildren().forPath("/locks/compat")).hasSize(2));
		long heldToken = lock.fencingToken();
		lock.unlock();
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(heldToken).isGreaterThan(firstToken);

		// Session expiry: the holder's client cannot reach the server; the server expires
		// its session, deletes its node, and the other session takes the key
		lock.lock();
		proxy.refuse(true);
		eventually().until(lock::leaseState, (state) -> state == LeaseState.LOST);
		assertThat(onSecondThread(() -> {
			if (!other.tryLock(30, TimeUnit.SECONDS)) {
				return false;
			}
			other.unlock();
			return true;
		})).as("the other session takes the key the expired session held").isTrue();
		proxy.refuse(false);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		// The expired client's registry works again on its new session
		assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
	}

	private <T> T onSecondThread(Callable<T> task) throws Exception {
		return this.secondThread.submit(task).get(60, TimeUnit.SECONDS);
	}

	private ZkLockRegistry registry(String connectString) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
			.connectionTimeoutMs(2000)
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		this.closeables.add(client);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).as("connected to %s", connectString).isTrue();
		ZkLockRegistry registry = new ZkLockRegistry(client);
		this.closeables.add(registry);
		return registry;
	}

	private static String property(String name) {
		String value = System.getProperty(name);
		assertThat(value).as("system property %s (set by the pom's surefire configuration)", name)
			.isNotBlank()
			.doesNotContain("${");
		return value;
	}

}
