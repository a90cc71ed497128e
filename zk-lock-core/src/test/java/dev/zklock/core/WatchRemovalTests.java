package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.zookeeper.ClientWatchers;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Other code on a registry's client removes the watches the engine set
 * ({@code client.watchers().removeAll()}, {@code ZooKeeper.removeAllWatches}): ZooKeeper
 * tells the engine's watcher ({@code ChildWatchRemoved}, {@code DataWatchRemoved}), and
 * the engine arms the watch again and looks again, so another participant's wait stays
 * bounded as it is with the watch left alone. Every wait here is far longer than the
 * bound asserted, which is far shorter than any timer of the engine.
 */
@Timeout(120)
class WatchRemovalTests {

	/** How long the other participant is willing to wait. */
	private static final Duration WAIT = Duration.ofSeconds(30);

	/** How soon it must get in: with the watch left alone, in well under a second. */
	private static final Duration PROMPTLY = Duration.ofSeconds(5);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private final AtomicBoolean stop = new AtomicBoolean();

	private final List<CompletableFuture<Void>> loops = new ArrayList<>();

	private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

	@AfterEach
	void stopLoops() throws Exception {
		this.stop.set(true);
		for (CompletableFuture<Void> loop : this.loops) {
			loop.get(30, TimeUnit.SECONDS);
		}
		assertThat(this.failures).isEmpty();
	}

	/**
	 * Threads of registry A pass the node among themselves; once its child watch is
	 * removed, A must still learn that B queued behind it.
	 */
	@Test
	void aWaiterGetsInWhileAnotherRegistryHandsItsNodeOnWithItsChildWatchRemoved() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLock lock = this.zk.newRegistry(client).obtain("handed");
		AtomicInteger cycles = new AtomicInteger();
		handOffLoops(lock, cycles);
		eventually().until(() -> cycles.get() > 100 && childWatched(client, "/locks/handed"));
		removeWatches(client, "/locks/handed");
		assertGetsInPromptly(this.zk.newRegistry().obtain("handed"));
		assertThat(cycles.get()).as("A kept passing its node on").isGreaterThan(100);
	}

	/**
	 * As above, with the watches removed again and again while B waits.
	 */
	@Test
	void aWaiterGetsInWhileAnotherRegistryHandsItsNodeOnWithItsWatchesRemovedOverAndOver() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLock lock = this.zk.newRegistry(client).obtain("removed");
		AtomicInteger cycles = new AtomicInteger();
		handOffLoops(lock, cycles);
		eventually().until(() -> cycles.get() > 100 && childWatched(client, "/locks/removed"));
		loop(() -> {
			removeWatches(client, "/locks/removed");
			Thread.sleep(20);
		});
		assertGetsInPromptly(this.zk.newRegistry().obtain("removed"));
	}

	/**
	 * As above, with the watch lost to a reconnect on a client told not to set its
	 * watches again ({@code zookeeper.disableAutoWatchReset}): no event tells of the loss
	 * but the disconnect itself.
	 */
	@Test
	void aWaiterGetsInWhileAnotherRegistryHandsItsNodeOnAfterAReconnectThatLostItsWatch() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString(), true);
		ZkLock lock = this.zk.newRegistry(client).obtain("reconnected");
		AtomicInteger cycles = new AtomicInteger();
		handOffLoops(lock, cycles);
		eventually().until(() -> cycles.get() > 100 && childWatched(client, "/locks/reconnected"));
		long session = zooKeeper(client).getSessionId();
		proxy.killConnections();
		eventually().until(() -> zooKeeper(client).getState().isConnected() && cycles.get() > 200);
		assertThat(zooKeeper(client).getSessionId()).as("the same session, its watches not set again")
			.isEqualTo(session);
		assertGetsInPromptly(this.zk.newRegistry().obtain("reconnected"));
	}

	/**
	 * Readers of registry A, back to back, keep its read node held; once its child watch
	 * is removed, A must still learn that B's writer queued behind it.
	 */
	@Test
	void aWriterGetsInPastBackToBackReadersWithTheirChildWatchRemoved() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLock read = this.zk.newRegistry(client).obtainReadWrite("doc").readLock();
		AtomicInteger cycles = new AtomicInteger();
		for (int i = 0; i < 4; i++) {
			loop(() -> {
				read.lock();
				try {
					cycles.incrementAndGet();
					Thread.sleep(5);
				}
				finally {
					read.unlock();
				}
			});
		}
		eventually().until(() -> cycles.get() > 30 && childWatched(client, "/locks/doc"));
		removeWatches(client, "/locks/doc");
		assertGetsInPromptly(this.zk.newRegistry().obtainReadWrite("doc").writeLock());
	}

	/**
	 * A thread of registry A re-locks in a loop on a lingering node; once its child watch
	 * is removed, A must still learn that B queued, long before the linger is renewed.
	 */
	@Test
	void aWaiterGetsInWhileAnotherRegistryRelocksALingeringNodeWithItsChildWatchRemoved() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLock lock = this.zk.newRegistry(client, ZkLockOptions.defaults().withLinger(Duration.ofMinutes(2)))
			.obtain("lingering");
		AtomicInteger cycles = new AtomicInteger();
		loop(() -> {
			lock.lock();
			try {
				cycles.incrementAndGet();
			}
			finally {
				lock.unlock();
			}
		});
		eventually().until(() -> cycles.get() > 100 && childWatched(client, "/locks/lingering"));
		removeWatches(client, "/locks/lingering");
		assertGetsInPromptly(this.zk.newRegistry().obtain("lingering"));
	}

	/**
	 * A lease waits for a permit by the child watch on the leases; removed, the lease
	 * must still hear that a permit came back.
	 */
	@TimingSensitive
	@Test
	void aWaitingLeaseGetsThePermitReturnedWithItsChildWatchRemoved() throws Exception {
		InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(this.zk.newClient(), "/locks/pool", 1);
		Lease held = curator.acquire();
		CuratorFramework client = this.zk.newClient();
		ZkSemaphore ours = this.zk.newRegistry(client).obtainSemaphore("pool", 1);
		CompletableFuture<ZkLease> waiting = CompletableFuture.supplyAsync(() -> ours.acquire(WAIT),
				TestThreads.EXECUTOR);
		eventually().until(() -> childWatched(client, "/locks/pool/leases"));
		removeWatches(client, "/locks/pool/leases");
		long returned = System.nanoTime();
		curator.returnLease(held);
		ZkLease lease = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - returned)).isLessThan(PROMPTLY);
		lease.release();
	}

	/**
	 * A participant waits behind its predecessor by a data watch on it; removed, it must
	 * still hear the predecessor go.
	 */
	@TimingSensitive
	@Test
	void aWaiterBehindAPredecessorGetsInWithItsDataWatchRemoved() throws Exception {
		InterProcessMutex curator = new InterProcessMutex(this.zk.newClient(), "/locks/behind");
		curator.acquire();
		String predecessor = "/locks/behind/" + this.zk.children("/locks/behind").get(0);
		CuratorFramework client = this.zk.newClient();
		ZkLock lock = this.zk.newRegistry(client).obtain("behind");
		CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				boolean acquired = lock.tryLock(WAIT.toSeconds(), TimeUnit.SECONDS);
				if (acquired) {
					lock.unlock();
				}
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		eventually().until(() -> dataWatched(client, predecessor));
		removeWatches(client, predecessor);
		long released = System.nanoTime();
		curator.release();
		assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(PROMPTLY);
	}

	/**
	 * A hold that listens for revocation requests watches its node's data; removed, the
	 * watch is armed again, and a request still reaches the hold.
	 */
	@TimingSensitive
	@Test
	void aRevocationRequestReachesAHoldWhoseDataWatchWasRemoved() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLock lock = this.zk.newRegistry(client).obtain("asked");
		lock.lock();
		try {
			CountDownLatch told = new CountDownLatch(1);
			lock.onRevocationRequested(told::countDown);
			String node = "/locks/asked/" + this.zk.children("/locks/asked").get(0);
			eventually().until(() -> dataWatched(client, node));
			removeWatches(client, node);
			eventually().until(() -> dataWatched(client, node));
			Revoker.attemptRevoke(this.zk.newClient(), node);
			assertThat(told.await(PROMPTLY.toSeconds(), TimeUnit.SECONDS)).isTrue();
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Threads that take a lock in turns, each holding it a moment, so that another always
	 * queues when one releases it: the node passes from thread to thread and is never
	 * deleted while nobody else is seen waiting.
	 */
	private void handOffLoops(ZkLock lock, AtomicInteger cycles) {
		for (int i = 0; i < 4; i++) {
			loop(() -> {
				lock.lock();
				try {
					cycles.incrementAndGet();
					Thread.sleep(1);
				}
				finally {
					lock.unlock();
				}
			});
		}
	}

	private void assertGetsInPromptly(ZkLock lock) throws InterruptedException {
		long start = System.nanoTime();
		boolean acquired = lock.tryLock(WAIT.toSeconds(), TimeUnit.SECONDS);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		if (acquired) {
			lock.unlock();
		}
		assertThat(acquired).as("got in within %s", WAIT).isTrue();
		assertThat(waited).isLessThan(PROMPTLY);
	}

	/**
	 * Run a step in a loop on a thread of its own until the test ends.
	 */
	private void loop(Step step) {
		this.loops.add(CompletableFuture.runAsync(() -> {
			while (!this.stop.get()) {
				try {
					step.run();
				}
				catch (Throwable ex) {
					this.failures.add(ex);
					return;
				}
			}
		}, (runnable) -> new Thread(runnable).start()));
	}

	/**
	 * Remove every watch the client keeps on a path, as other code on the client may.
	 */
	private static void removeWatches(CuratorFramework client, String path) throws Exception {
		try {
			client.watchers().removeAll().forPath(path);
		}
		catch (KeeperException.NoWatcherException ex) {
			// None armed at this moment
		}
	}

	private static boolean childWatched(CuratorFramework client, String path) throws Exception {
		return ClientWatchers.childWatched(zooKeeper(client), path);
	}

	private static boolean dataWatched(CuratorFramework client, String path) throws Exception {
		return ClientWatchers.dataWatched(zooKeeper(client), path);
	}

	private static ZooKeeper zooKeeper(CuratorFramework client) throws Exception {
		return client.getZookeeperClient().getZooKeeper();
	}

	@FunctionalInterface
	private interface Step {

		void run() throws Exception;

	}

}
