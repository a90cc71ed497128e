package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.test.ZkLockTestKit;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The lingering lease ({@link ZkLockOptions#linger()}): the last local release keeps the
 * node, the next local acquisition reuses it without a request, and another participant
 * ends the linger at once through the child watch. The lingers here are far longer than
 * the other participants' waits, so an acquisition that succeeds proves the watch ended
 * the linger, not its timer.
 */
@Timeout(90)
class LingerTests {

	private static final Duration LONG_LINGER = Duration.ofMinutes(2);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	/**
	 * Where the application's session is expired: the 4 s sessions of before, lingering.
	 */
	@RegisterExtension
	static ZkLockTestKit kit = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20))
		.options(ZkLockOptions.defaults().withLinger(LONG_LINGER));

	@Test
	void relockingReusesTheLingeringNode() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("relock");
		lock.lock();
		long token = lock.fencingToken();
		List<String> node = this.zk.children("/locks/relock");
		lock.unlock();
		assertThat(this.zk.children("/locks/relock")).isEqualTo(node);
		for (int i = 0; i < 3; i++) {
			lock.lock();
			try {
				assertThat(lock.fencingToken()).isEqualTo(token);
				assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
				assertThat(registry.localLocks().get(0).lingering()).isFalse();
			}
			finally {
				lock.unlock();
			}
		}
		assertThat(this.zk.children("/locks/relock")).isEqualTo(node);
		assertThat(registry.localLocks()).singleElement().satisfies((info) -> {
			assertThat(info.held()).isFalse();
			assertThat(info.lingering()).isTrue();
			assertThat(info.nodePath()).isEqualTo("/locks/relock/" + node.get(0));
		});
	}

	@Test
	void anotherRegistryEndsTheLingerAtOnce() throws Exception {
		ZkLockRegistry owner = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLockRegistry visitor = this.zk.newRegistry();
		ZkLock ownLock = owner.obtain("visited");
		ownLock.lock();
		long lingered = ownLock.fencingToken();
		ownLock.unlock();
		ZkLock visit = visitor.obtain("visited");
		assertThat(visit.tryLock(20, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(ownLock.tryLock(0, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			visit.unlock();
		}
		assertTakesANewNode(ownLock, lingered);
	}

	@Test
	void aPlainCuratorMutexEndsTheLingerAtOnce() throws Exception {
		ZkLockRegistry owner = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock ownLock = owner.obtain("curator-visit");
		ownLock.lock();
		ownLock.unlock();
		InterProcessMutex curator = new InterProcessMutex(this.zk.newClient(), "/locks/curator-visit");
		assertThat(curator.acquire(20, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(ownLock.tryLock(0, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			curator.release();
		}
		assertThat(ownLock.tryLock(20, TimeUnit.SECONDS)).isTrue();
		ownLock.unlock();
	}

	/**
	 * The delete of a released node fires the child watch that its own child list armed;
	 * the event reaches the entry while the next local thread acquires its own node. It
	 * comes before the reply of that thread's child list, on the same event thread, so it
	 * is not taken for a participant queued behind the new node, which then lingers.
	 */
	@Test
	void theEventOfOurOwnDeleteIsNotTakenForAWaiter() throws Exception {
		// No hand-off: the first release deletes its node and the waiter creates its own
		ZkLockRegistry registry = this.zk
			.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER).withMaxLocalHandoffs(0));
		ZkLock lock = registry.obtain("own-delete");
		lock.lock();
		long first = lock.fencingToken();
		AtomicLong second = new AtomicLong();
		CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
			lock.lock();
			try {
				second.set(lock.fencingToken());
			}
			finally {
				lock.unlock();
			}
		}, TestThreads.EXECUTOR);
		eventually().until(() -> registry.localLocks().get(0).waiters() == 1);
		lock.unlock();
		waiter.get(20, TimeUnit.SECONDS);
		assertThat(second.get()).isNotEqualTo(first);
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isEqualTo(second.get());
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void theLingerEndsOnItsOwn() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(Duration.ofMillis(300)));
		ZkLock lock = registry.obtain("short-linger");
		lock.lock();
		lock.unlock();
		eventually().until(() -> this.zk.children("/locks/short-linger").isEmpty());
		eventually().until(() -> registry.localLocks().isEmpty());
	}

	@Test
	void closingTheRegistryDeletesALingeringNode() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("closed");
		lock.lock();
		lock.unlock();
		assertThat(this.zk.children("/locks/closed")).hasSize(1);
		registry.close();
		eventually().until(() -> this.zk.children("/locks/closed").isEmpty());
	}

	@Test
	void aLingeringNodeOfAnEndedSessionIsNotReused() throws Exception {
		ZkLockRegistry registry = kit.registry();
		CuratorFramework client = registry.getClient();
		ZkLock lock = registry.obtain("expired");
		lock.lock();
		long lingered = lock.fencingToken();
		long session = client.getZookeeperClient().getZooKeeper().getSessionId();
		lock.unlock();
		kit.expireSession();
		eventually().until(() -> client.getZookeeperClient().isConnected()
				&& client.getZookeeperClient().getZooKeeper().getSessionId() != session);
		assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(lock.fencingToken()).isNotEqualTo(lingered);
			assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void aLingeringNodeDeletedByAnotherClientIsNotReused() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("deleted");
		lock.lock();
		long lingered = lock.fencingToken();
		lock.unlock();
		String node = this.zk.children("/locks/deleted").get(0);
		this.zk.newClient().delete().forPath("/locks/deleted/" + node);
		// The deletion fires the child watch: the entry lets go of the node
		eventually().until(() -> registry.localLocks().isEmpty());
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isNotEqualTo(lingered);
			assertThat(this.zk.children("/locks/deleted")).singleElement().isNotEqualTo(node);
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * A connection loss ends the linger and the next lock takes a new node, whether or
	 * not the client re-arms its watches on reconnect: a participant that queued during
	 * the outage is not left waiting behind a node nobody watches for it.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aConnectionLossEndsTheLinger(boolean disableAutoWatchReset) throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString(), disableAutoWatchReset);
		long session = client.getZookeeperClient().getZooKeeper().getSessionId();
		ZkLockRegistry registry = this.zk.newRegistry(client, ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("outage");
		lock.lock();
		long lingered = lock.fencingToken();
		lock.unlock();
		proxy.killConnections();
		eventually().until(() -> registry.localLocks().isEmpty());
		eventually().until(() -> client.getZookeeperClient().isConnected());
		assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
		assertTakesANewNode(lock, lingered);
		ZkLock visit = this.zk.newRegistry().obtain("outage");
		assertThat(visit.tryLock(20, TimeUnit.SECONDS)).isTrue();
		visit.unlock();
	}

	/**
	 * The node and its lock path deleted by someone else while this client was cut off:
	 * on reconnect the re-armed child watch fires as the path's deletion. The node is not
	 * reused, and the lock still excludes another participant.
	 */
	@Test
	void aNodeDeletedDuringAnOutageIsNotReused() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		ZkLockRegistry registry = this.zk.newRegistry(client, ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("gone");
		lock.lock();
		long lingered = lock.fencingToken();
		lock.unlock();
		String node = this.zk.children("/locks/gone").get(0);
		proxy.refuse(true);
		// Noticed by the client, as it is long before the session could expire
		eventually().until(() -> !client.getZookeeperClient().isConnected());
		CuratorFramework admin = this.zk.newClient();
		admin.delete().forPath("/locks/gone/" + node);
		admin.delete().forPath("/locks/gone");
		proxy.refuse(false);
		eventually().until(() -> client.getZookeeperClient().isConnected());
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isNotEqualTo(lingered);
			assertThat(this.zk.children("/locks/gone")).hasSize(1);
			ZkLock visit = this.zk.newRegistry().obtain("gone");
			assertThat(visit.tryLock(0, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void awaitReleasedDeletesLingeringNodes() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("awaited");
		lock.lock();
		lock.unlock();
		assertThat(registry.awaitReleased(Duration.ofSeconds(20))).isTrue();
		assertThat(this.zk.children("/locks/awaited")).isEmpty();
	}

	/**
	 * Nobody holds a lingering node to decide on a revocation request, so the request
	 * (here Curator's own {@code Revoker}) ends the linger at once.
	 */
	@Test
	void aRevocationRequestEndsTheLinger() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("revoked");
		lock.lock();
		long lingered = lock.fencingToken();
		lock.unlock();
		String node = this.zk.children("/locks/revoked").get(0);
		Revoker.attemptRevoke(this.zk.newClient(), "/locks/revoked/" + node);
		eventually().until(() -> this.zk.children("/locks/revoked").isEmpty());
		eventually().until(() -> registry.localLocks().isEmpty());
		assertTakesANewNode(lock, lingered);
	}

	/**
	 * A request made while a holder that did not listen for one held the node (so nothing
	 * watched it) is found by the read that the node's first linger sends, and the node
	 * goes: it is not kept for this JVM's next hold.
	 */
	@Test
	void aRequestMadeDuringTheHoldEndsTheLingerThatFollows() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("asked-while-held");
		lock.lock();
		long held = lock.fencingToken();
		try {
			assertThat(this.zk.newRegistry().requestRevocation("asked-while-held")).hasSize(1);
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
		}
		finally {
			lock.unlock();
		}
		eventually().until(() -> this.zk.children("/locks/asked-while-held").isEmpty());
		assertTakesANewNode(lock, held);
	}

	/**
	 * A request that reaches a node taken again from its linger, by a holder that does
	 * not listen: the hold goes on, and its release deletes the node rather than keep it.
	 */
	@Test
	void aNodeAskedForWhileReusedIsNotKeptAgain() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLock lock = registry.obtain("asked-while-reused");
		lock.lock();
		long lingered = lock.fencingToken();
		lock.unlock();
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isEqualTo(lingered);
			assertThat(this.zk.newRegistry().requestRevocation("asked-while-reused")).hasSize(1);
			eventually().until(lock::isRevocationRequested);
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
			assertThat(this.zk.children("/locks/asked-while-reused")).hasSize(1);
		}
		finally {
			lock.unlock();
		}
		eventually().until(() -> this.zk.children("/locks/asked-while-reused").isEmpty());
		assertTakesANewNode(lock, lingered);
	}

	@Test
	void aLingerLongerThanAnHourIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ZkLockOptions.defaults().withLinger(Duration.ofHours(2)))
			.withMessage("linger must be between 0 and PT1H, but was PT2H");
	}

	/**
	 * One registry re-locks its key in a loop while two others, one of them plain
	 * Curator, want it now and then: every visit gets in, long before any linger could
	 * end on its own, and no two holders ever overlap.
	 */
	@Test
	void visitorsAlwaysGetInWhileTheOwnerRelocks() throws Exception {
		ZkLockRegistry owner = this.zk.newRegistry(ZkLockOptions.defaults().withLinger(LONG_LINGER));
		ZkLockRegistry visitor = this.zk.newRegistry();
		InterProcessMutex curator = new InterProcessMutex(this.zk.newClient(), "/locks/busy");
		AtomicInteger inside = new AtomicInteger();
		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger ownerCycles = new AtomicInteger();
		Set<Long> ownerTokens = ConcurrentHashMap.newKeySet();
		ZkLock ownLock = owner.obtain("busy");
		CompletableFuture<Void> relocker = CompletableFuture.runAsync(() -> {
			while (!stop.get()) {
				try {
					if (!ownLock.tryLock(30, TimeUnit.SECONDS)) {
						failures.add("the owner timed out");
						return;
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				try {
					enter(inside, failures, "owner");
					ownerTokens.add(ownLock.fencingToken());
					ownerCycles.incrementAndGet();
					inside.decrementAndGet();
				}
				finally {
					ownLock.unlock();
				}
			}
		}, TestThreads.EXECUTOR);
		ZkLock visit = visitor.obtain("busy");
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			int cycles = ownerCycles.get();
			eventually().until(() -> ownerCycles.get() > cycles + 5 || !failures.isEmpty());
			if (i % 2 == 0) {
				assertThat(visit.tryLock(20, TimeUnit.SECONDS)).as("visit %d", i).isTrue();
				try {
					enter(inside, failures, "visitor");
					tokens.add(visit.fencingToken());
					Thread.sleep(2);
					inside.decrementAndGet();
				}
				finally {
					visit.unlock();
				}
			}
			else {
				assertThat(curator.acquire(20, TimeUnit.SECONDS)).as("Curator visit %d", i).isTrue();
				try {
					enter(inside, failures, "Curator");
					Thread.sleep(2);
					inside.decrementAndGet();
				}
				finally {
					curator.release();
				}
			}
		}
		stop.set(true);
		relocker.get(30, TimeUnit.SECONDS);
		assertThat(failures).isEmpty();
		assertThat(tokens).doesNotHaveDuplicates();
		// Re-locks between visits reused lingering nodes: a visit makes the owner take a
		// new node (two if it came while the owner was taking one), no more
		assertThat(ownerCycles.get()).isGreaterThan(100);
		assertThat(ownerTokens.size()).isLessThanOrEqualTo(2 * 20 + 1);
	}

	/**
	 * Lock once more and check that the hold is on a new node, not on the one of
	 * {@code oldToken}.
	 */
	private static void assertTakesANewNode(ZkLock lock, long oldToken) throws InterruptedException {
		assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(lock.fencingToken()).isNotEqualTo(oldToken);
		}
		finally {
			lock.unlock();
		}
	}

	private static void enter(AtomicInteger inside, ConcurrentLinkedQueue<String> failures, String who) {
		int now = inside.incrementAndGet();
		if (now != 1) {
			failures.add(who + " entered with " + (now - 1) + " other holder(s) inside");
		}
	}

}
