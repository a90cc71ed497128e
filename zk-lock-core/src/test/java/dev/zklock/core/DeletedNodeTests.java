package dev.zklock.core;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A held node that another client deletes, on real ZooKeeper servers: a hold that watches
 * its node (it listens for revocation requests) hears of it and is
 * {@link LeaseState#LOST}; the engine's own deletes are never taken for one. The kit
 * deletes the node, as an operator would.
 */
@Timeout(60)
class DeletedNodeTests {

	/** The 4 s sessions and 20 s waits of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	/** The kit's options are the class's: each test starts from the defaults. */
	@BeforeEach
	void defaultOptions() {
		zk.options(ZkLockOptions.defaults());
	}

	@Test
	void aListeningHoldWhoseNodeAnotherClientDeletesIsLost() throws Exception {
		ZkLockRegistry registry = zk.registry();
		Queue<LeaseState> told = told(registry, "deleted");
		ZkLock lock = registry.obtain("deleted");
		lock.lock();
		lock.onRevocationRequested(() -> {
		});
		assertThat(lock.lostBecause()).isNull();
		zk.deleteHeldNode("deleted");
		// The state changes first, then the listeners are told
		eventually().untilAsserted(() -> assertThat(told).containsExactly(LeaseState.LOST));
		assertThat(lock.leaseState()).isEqualTo(LeaseState.LOST);
		assertThat(lock.lostBecause()).isEqualTo("another client deleted its node");
		assertThat(lock.isHeldByCurrentThread()).as("still held locally, until unlocked").isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageContaining("another client deleted its node")
			.withMessageNotContaining("session");
		assertThat(lock.isHeldByCurrentThread()).isFalse();
	}

	@Test
	void aListeningReadHoldWhoseNodeAnotherClientDeletesIsLost() throws Exception {
		ZkLockRegistry registry = zk.registry();
		Queue<LeaseState> told = told(registry, "doc");
		ZkLock read = registry.obtainReadWrite("doc").readLock();
		read.lock();
		read.onRevocationRequested(() -> {
		});
		zk.deleteHeldNode("doc");
		eventually().untilAsserted(() -> assertThat(told).containsExactly(LeaseState.LOST));
		assertThat(read.leaseState()).isEqualTo(LeaseState.LOST);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(read::unlock)
			.withMessageContaining("another client deleted its node");
	}

	@Test
	void aThreadQueuedBehindADeletedNodeTakesANewOne() throws Exception {
		ZkLockRegistry registry = zk.options(ZkLockOptions.defaults().withLostLockPolicy(LostLockPolicy.WARN))
			.registry();
		ZkLock lock = registry.obtain("queued");
		lock.lock();
		long oldToken = lock.fencingToken();
		lock.onRevocationRequested(() -> {
		});
		CountDownLatch holds = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		CompletableFuture<long[]> next = CompletableFuture.supplyAsync(() -> {
			lock.lock();
			try {
				holds.countDown();
				long token = lock.fencingToken();
				LeaseState state = lock.leaseState();
				done.await(20, TimeUnit.SECONDS);
				return new long[] { token, state.ordinal() };
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				lock.unlock();
			}
		}, TestThreads.EXECUTOR);
		eventually().until(() -> registry.localLocks()
			.stream()
			.anyMatch((info) -> info.key().equals("queued") && info.waiters() > 0));
		zk.deleteHeldNode("queued");
		eventually().untilAsserted(() -> assertThat(lock.leaseState()).isEqualTo(LeaseState.LOST));
		lock.unlock();
		assertThat(holds.await(20, TimeUnit.SECONDS)).isTrue();
		// the next holder's own node, in ZooKeeper
		zk.assertThatKey("queued").isHeldByApplication().hasWaiters(0);
		done.countDown();
		long[] seen = next.get(20, TimeUnit.SECONDS);
		assertThat(seen[0]).as("the lost node is not handed on: the next holder's token").isGreaterThan(oldToken);
		assertThat(seen[1]).isEqualTo(LeaseState.HELD.ordinal());
	}

	@Test
	void theEnginesOwnDeletesAreNotTakenForAnotherClients() throws Exception {
		ZkLockRegistry registry = zk.registry();
		Queue<LeaseState> told = told(registry, "own");
		ZkLock lock = registry.obtain("own");
		for (int i = 0; i < 20; i++) {
			lock.lock();
			lock.onRevocationRequested(() -> {
			});
			lock.unlock();
		}
		// The last release's delete and its event have come back
		zk.assertThatKey("own").isNotHeld();
		// Events for this registry's session are delivered in order: one more hold and
		// release after the deletes makes sure every earlier event was handled
		lock.lock();
		assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
		lock.unlock();
		assertThat(told).isEmpty();
	}

	/**
	 * The node's delete is heard twice: by the child watch a linger keeps, which ends the
	 * linger on its own, and by the data watch of the first linger; neither may report a
	 * lost hold, since nobody held the node.
	 */
	@Test
	void aLingeringNodeAnotherClientDeletesIsNotReused() throws Exception {
		ZkLockRegistry registry = zk.options(ZkLockOptions.defaults().withLinger(Duration.ofMinutes(2))).registry();
		Queue<LeaseState> told = told(registry, "kept");
		ZkLock lock = registry.obtain("kept");
		lock.lock();
		long oldToken = lock.fencingToken();
		lock.unlock();
		eventually().until(
				() -> registry.localLocks().stream().anyMatch((info) -> info.key().equals("kept") && info.lingering()));
		zk.deleteHeldNode("kept");
		eventually().until(() -> registry.localLocks()
			.stream()
			.noneMatch((info) -> info.key().equals("kept") && info.lingering()));
		lock.lock();
		try {
			assertThat(lock.fencingToken()).isGreaterThan(oldToken);
			zk.assertThatKey("kept").isHeldByApplication().hasWaiters(0);
		}
		finally {
			lock.unlock();
		}
		assertThat(told).as("a lingering node is nobody's hold").isEmpty();
	}

	private static Queue<LeaseState> told(ZkLockRegistry registry, String key) {
		Queue<LeaseState> told = new ConcurrentLinkedQueue<>();
		registry.addListener(new ZkLockListener() {
			@Override
			public void leaseStateChanged(String changed, String path, LeaseState state) {
				if (changed.equals(key)) {
					told.add(state);
				}
			}
		});
		return told;
	}

}
