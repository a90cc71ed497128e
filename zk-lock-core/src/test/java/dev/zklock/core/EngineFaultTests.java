package dev.zklock.core;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ClientWatchers;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.zklock.test.InProcessZooKeeper.eventually;

/**
 * The engine under network faults made on demand by a {@link ZkFaultProxy} between one
 * client and a real ZooKeeper server: lost replies, refused connections, blackholes, late
 * replies. Each test pins one defect found by an adversarial review, so that it cannot
 * come back.
 */
@Timeout(90)
class EngineFaultTests {

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		this.executor.shutdownNow();
	}

	@ParameterizedTest(name = "container reaped before: {0}")
	@ValueSource(booleans = { false, true })
	void firstAcquisitionOfAKeyDuringAnOutageSucceedsWhenZooKeeperReturns(boolean containerReaped) throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		if (containerReaped) {
			registry.executeLocked("first-use", Duration.ofSeconds(5), () -> {
			});
			// what ZooKeeper's container reaper does to an empty lock path
			this.zk.newClient().delete().forPath("/locks/first-use");
		}
		proxy.refuse(true);
		Future<Long> timed = this.executor
			.submit(() -> lockAndReadToken(registry, "first-use", Duration.ofSeconds(30)));
		Future<Long> unbounded = this.executor.submit(() -> {
			ZkLock lock = registry.obtain("first-use-unbounded");
			lock.lock();
			try {
				return lock.fencingToken();
			}
			finally {
				lock.unlock();
			}
		});
		Thread.sleep(2_000);
		proxy.refuse(false);
		assertThat(timed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isPositive();
		assertThat(unbounded.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isPositive();
		// The livelock sent tens of thousands of these
		assertThat(proxy.requests(OpCode.getChildren)).isLessThan(30);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/first-use")).isEmpty());
		assertThat(registry.size()).isZero();
	}

	@Test
	void createWhoseReplyIsLostIsAdoptedEvenWhenReadingItFailsToo() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLockRegistry other = this.zk.newRegistry();
		lockAndReadToken(registry, "lost-reply", PATIENCE);
		proxy.loseNextReplyTo(OpCode.create2);
		proxy.loseNextReplyTo(OpCode.getData);
		ZkLock lock = registry.obtain("lost-reply");
		lock.acquire(PATIENCE);
		try {
			assertThat(proxy.rulesFired()).isTrue();
			String ours = registry.localLocks().get(0).nodePath();
			assertThat(this.zk.children("/locks/lost-reply"))
				.containsExactly(ours.substring(ours.lastIndexOf('/') + 1));
		}
		finally {
			lock.unlock();
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/lost-reply")).isEmpty());
		assertThat(lockAndReadToken(other, "lost-reply", Duration.ofSeconds(5))).isPositive();
		assertThat(registry.size()).isZero();
	}

	@Test
	void createWhoseReplyIsLostIsDeletedWhenTheWaitEndsWhileReadingIt() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLockRegistry other = this.zk.newRegistry();
		// The key has been used before: its container exists, so the create succeeds on
		// the server
		lockAndReadToken(registry, "late-read", PATIENCE);
		proxy.loseNextReplyTo(OpCode.create2);
		proxy.delayNextReplyTo(OpCode.getData, Duration.ofSeconds(6));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.obtain("late-read").acquire(Duration.ofSeconds(3)));
		assertThat(proxy.rulesFired()).isTrue();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/late-read")).isEmpty());
		assertThat(lockAndReadToken(other, "late-read", Duration.ofSeconds(5))).isPositive();
		assertThat(registry.size()).isZero();
	}

	@Test
	void listenersThatThrowDoNotSwitchOffSessionTracking() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLockRegistry other = this.zk.newRegistry();
		List<String> seen = new CopyOnWriteArrayList<>();
		registry.addListener(new ZkLockListener() {
			@Override
			public void leaseStateChanged(String key, String path, LeaseState state) {
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void connectionStateChanged(ConnectionState state) {
				throw new IllegalStateException("listener bug");
			}
		});
		registry.addListener(new ZkLockListener() {
			@Override
			public void leaseStateChanged(String key, String path, LeaseState state) {
				seen.add(key + "=" + state);
			}
		});
		ZkLock first = registry.obtain("tracked-1");
		ZkLock second = registry.obtain("tracked-2");
		first.lock();
		second.lock();
		String log = capturingStandardError(() -> {
			proxy.refuse(true);
			eventually().untilAsserted(() -> assertThat(List.of(first.leaseState(), second.leaseState()))
				.containsOnly(LeaseState.UNCERTAIN));
			// Listeners are told after the state changed (and after the warning is
			// logged), each in turn
			eventually().untilAsserted(() -> assertThat(seen).contains("tracked-1=UNCERTAIN", "tracked-2=UNCERTAIN"));
		});
		// One line for the connection, naming the locks, not one per lock
		assertThat(log).containsOnlyOnce("ZooKeeper connection SUSPENDED (connect string " + proxy.connectString())
			.contains("2 held locks are UNCERTAIN: ")
			.contains("'tracked-1'")
			.contains("'tracked-2'");
		// The session expires while no connection is possible; another session takes the
		// keys
		eventually().untilAsserted(
				() -> assertThat(List.of(first.leaseState(), second.leaseState())).containsOnly(LeaseState.LOST));
		assertThat(lockAndReadToken(other, "tracked-1", PATIENCE)).isPositive();
		eventually().untilAsserted(() -> assertThat(seen).contains("tracked-1=LOST", "tracked-2=LOST"));
		proxy.refuse(false);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(second::unlock)
			.withMessageContaining("the ZooKeeper session expired");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::unlock);
	}

	@Test
	void closedRegistryKeepsTrackingTheLocksStillHeld() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLock lock = registry.obtain("closed-held");
		lock.lock();
		registry.close();
		assertThatThrownBy(() -> registry.obtain("another").tryLock()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("closed");
		proxy.refuse(true);
		eventually().until(lock::leaseState, (state) -> state == LeaseState.LOST);
		proxy.refuse(false);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(registry.size()).isZero();
	}

	@Test
	void closedRegistryStillRetriesTheDeleteOfALockReleasedWhileDisconnected() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLock lock = registry.obtain("closed-retry");
		lock.lock();
		registry.close();
		proxy.refuse(true);
		eventually().until(lock::leaseState, (state) -> state == LeaseState.UNCERTAIN);
		lock.unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/closed-retry")).hasSize(1));
		proxy.refuse(false);
		// Same session (back well within its timeout): only our retry can remove the node
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/closed-retry")).isEmpty());
	}

	@Test
	void closeFailsTheWaitersQueuedBeforeIt() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLockRegistry remote = this.zk.newRegistry();
		ZkLock remotelyHeld = remote.obtain("closing-remote");
		remotelyHeld.lock();
		ZkLock locallyHeld = registry.obtain("closing-local");
		locallyHeld.lock();
		Future<Long> localWaiter = this.executor
			.submit(() -> lockAndReadToken(registry, "closing-local", Duration.ofSeconds(60)));
		Future<Long> remoteWaiter = this.executor
			.submit(() -> lockAndReadToken(registry, "closing-remote", Duration.ofSeconds(60)));
		eventually().until(registry::waitingCount, (count) -> count == 2);
		eventually().until(() -> this.zk.children("/locks/closing-remote").size() == 2);
		registry.close();
		for (Future<Long> waiter : List.of(localWaiter, remoteWaiter)) {
			assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
				.hasCauseInstanceOf(LockAcquisitionException.class)
				.cause()
				.satisfies((ex) -> assertThat(((LockAcquisitionException) ex).getReason()).isEqualTo(Reason.CLOSED));
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/closing-remote")).hasSize(1));
		assertThat(locallyHeld.isHeldByCurrentThread()).isTrue();
		locallyHeld.unlock();
		remotelyHeld.unlock();
		assertThat(registry.size()).isZero();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/closing-local")).isEmpty());
	}

	@Test
	void timedOutWaitsLeaveNoWatchersBehind() throws Exception {
		ZkLockRegistry holder = this.zk.newRegistry();
		ZkLockRegistry waiter = this.zk.newRegistry();
		ZkLock held = holder.obtain("watched");
		held.lock();
		try {
			ZkLock lock = waiter.obtain("watched");
			for (int i = 0; i < 200; i++) {
				assertThat(lock.tryLock(20, TimeUnit.MILLISECONDS)).isFalse();
			}
			ZooKeeper client = waiter.getClient().getZookeeperClient().getZooKeeper();
			// A waiter also watches its own node, until the node's delete fires the
			// watch: the last attempts' deletes may still be on their way
			eventually().untilAsserted(() -> {
				assertThat(ClientWatchers.data(client) + ClientWatchers.exists(client)).isLessThanOrEqualTo(2);
				assertThat(ClientWatchers.children(client)).isLessThanOrEqualTo(2);
			});
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void waitThatEndsWithoutAReplySaysSoAndLeavesNoNode() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		proxy.blackhole(true);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry.obtain("no-reply").acquire(Duration.ofMillis(500)))
			.withMessageContaining("ZooKeeper did not reply")
			.withMessageNotContaining("held by another participant")
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.NO_REPLY));
		proxy.blackhole(false);
		assertThat(lockAndReadToken(registry, "no-reply", PATIENCE)).isPositive();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/no-reply")).isEmpty());
	}

	@TimingSensitive
	@Test
	void participantsAnswersWithinTheConnectionTimeout() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		ZkLockRegistry registry = this.zk.newRegistry(client);
		ZkLock lock = registry.obtain("listed");
		lock.lock();
		try {
			assertThat(registry.participants("listed")).singleElement()
				.satisfies((participant) -> assertThat(participant.holder()).isTrue());
		}
		finally {
			lock.unlock();
		}
		proxy.blackhole(true);
		long start = System.nanoTime();
		assertThatThrownBy(() -> registry.participants("listed"))
			.isInstanceOf(java.util.concurrent.TimeoutException.class)
			.hasMessageContaining("'listed'");
		long connectionTimeoutMs = client.getZookeeperClient().getConnectionTimeoutMs();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(connectionTimeoutMs + 1_000);
	}

	@Test
	void waitThatEndsBehindAnotherHolderBlamesTheHolder() throws Exception {
		ZkLockRegistry holder = this.zk.newRegistry();
		ZkLockRegistry other = this.zk.newRegistry();
		ZkLock held = holder.obtain("blamed");
		held.lock();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> other.obtain("blamed").acquire(Duration.ofMillis(500)))
				.withMessageContaining("held by another participant")
				.withMessageContaining("holder _c_")
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.HELD_REMOTELY));
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void lockNeverReturnsANodeOfASessionTheClientHasLeft() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLockRegistry registry = this.zk.newRegistry(client);
		ZkLockRegistry holder = this.zk.newRegistry();
		ZkLockRegistry third = this.zk.newRegistry();
		// Several keys at once: each is a chance for the waiter to look again before the
		// client has its new session, which is when the old node could be taken for ours
		List<String> keys = List.of("moved-0", "moved-1", "moved-2", "moved-3");
		List<ZkLock> held = keys.stream().map(holder::obtain).toList();
		held.forEach(ZkLock::lock);
		long oldSession = client.getZookeeperClient().getZooKeeper().getSessionId();
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		List<Future<LeaseState>> waiters = keys.stream().map((key) -> this.executor.submit(() -> {
			ZkLock lock = registry.obtain(key);
			lock.lock();
			try {
				LeaseState state = lock.leaseState();
				release.await(60, TimeUnit.SECONDS);
				return state;
			}
			finally {
				lock.unlock();
			}
		})).toList();
		for (String key : keys) {
			eventually().until(() -> this.zk.children("/locks/" + key).size() == 2);
		}
		// Curator declares the session expired while the server still has it (as it does
		// after a long disconnect) and moves to a new one, while the waiters have no
		// request under way: their nodes belong to the old session, which the server ends
		// only later
		client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
		eventually().until(() -> client.getZookeeperClient().isConnected()
				&& client.getZookeeperClient().getZooKeeper().getSessionId() != oldSession);
		held.forEach(ZkLock::unlock);
		eventually().until(() -> registry.heldCount() == keys.size());
		// Now the old session ends on the server too: its nodes go, and nobody else may
		// get in
		Thread.sleep(InProcessZooKeeper.SESSION_TIMEOUT.toMillis() + 1_000);
		for (String key : keys) {
			assertThat(third.obtain(key).tryLock(500, TimeUnit.MILLISECONDS)).as(key).isFalse();
		}
		release.countDown();
		for (Future<LeaseState> waiter : waiters) {
			assertThat(waiter.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(LeaseState.HELD);
		}
		for (String key : keys) {
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/" + key)).isEmpty());
		}
	}

	private static long lockAndReadToken(ZkLockRegistry registry, String key, Duration wait) {
		ZkLock lock = registry.obtain(key);
		lock.acquire(wait);
		try {
			return lock.fencingToken();
		}
		finally {
			lock.unlock();
		}
	}

	interface Block {

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
		return captured.toString(StandardCharsets.UTF_8);
	}

}
