package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.zklock.test.ServerSideExpiry;
import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores on real ZooKeeper servers: registries on separate clients stand for separate
 * JVMs, and plain Curator {@link InterProcessSemaphoreV2}s share the permits.
 */
@Timeout(120)
class SemaphoreTests {

	/** How long the waits of the tests below are: far longer than {@link #PROMPTLY}. */
	private static final Duration WAIT = Duration.ofSeconds(30);

	/** How soon a freed permit is taken, with room for a loaded machine. */
	private static final Duration PROMPTLY = Duration.ofSeconds(5);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void neverMoreHoldersThanPermits() throws Exception {
		List<ZkSemaphore> semaphores = List.of(this.zk.newRegistry().obtainSemaphore("pool", 3),
				this.zk.newRegistry().obtainSemaphore("pool", 3));
		AtomicInteger holders = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		AtomicInteger grants = new AtomicInteger();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			ZkSemaphore semaphore = semaphores.get(i % 2);
			Thread thread = new Thread(() -> {
				try {
					for (int j = 0; j < 10; j++) {
						ZkLease lease = semaphore.acquire(Duration.ofSeconds(30));
						try {
							most.accumulateAndGet(holders.incrementAndGet(), Math::max);
							Thread.sleep(5);
							holders.decrementAndGet();
							grants.incrementAndGet();
						}
						finally {
							lease.release();
						}
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			});
			threads.add(thread);
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join(60_000);
		}
		assertThat(failures).isEmpty();
		assertThat(grants).hasValue(80);
		assertThat(most.get()).isLessThanOrEqualTo(3).isGreaterThan(1);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/pool/leases")).isEmpty());
	}

	@Test
	void sharesPermitsWithCuratorSemaphoreV2() throws Exception {
		ZkSemaphore ours = this.zk.newRegistry().obtainSemaphore("shared", 3);
		CuratorFramework client = this.zk.newClient();
		InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(client, "/locks/shared", 3);
		ZkLease first = ours.acquire(Duration.ofSeconds(5));
		ZkLease second = ours.acquire(Duration.ofSeconds(5));
		assertThat(ours.availablePermits()).isEqualTo(1);
		Lease curatorLease = curator.acquire(5, TimeUnit.SECONDS);
		assertThat(curatorLease).isNotNull();
		assertThat(curator.acquire(300, TimeUnit.MILLISECONDS)).as("Curator sees our two leases").isNull();
		assertThat(ours.tryAcquire(Duration.ZERO)).as("we see Curator's lease").isNull();
		assertThat(ours.tryAcquire(Duration.ofMillis(300))).isNull();
		CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return curator.acquire(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		// Curator's waiter finds no permit, for as long as we look
		await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(10)).until(() -> !waiting.isDone());
		assertThat(waiting).isNotDone();
		// Released by another thread than took it
		CompletableFuture.runAsync(first::release, TestThreads.EXECUTOR).get(10, TimeUnit.SECONDS);
		Lease third = waiting.get(15, TimeUnit.SECONDS);
		assertThat(third).isNotNull();
		first.release();
		curator.returnLease(curatorLease);
		curator.returnLease(third);
		second.release();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/shared/leases")).isEmpty());
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/shared/locks")).isEmpty());
	}

	@Test
	void aLeaseWaitsBehindCuratorAndGetsInWhenAPermitFrees() throws Exception {
		ZkSemaphore ours = this.zk.newRegistry().obtainSemaphore("one", 1);
		InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(this.zk.newClient(), "/locks/one", 1);
		Lease held = curator.acquire();
		CompletableFuture<ZkLease> waiting = CompletableFuture.supplyAsync(() -> ours.acquire(Duration.ofSeconds(20)),
				TestThreads.EXECUTOR);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/one/leases").size() == 2);
		assertThat(waiting).isNotDone();
		curator.returnLease(held);
		ZkLease lease = waiting.get(20, TimeUnit.SECONDS);
		assertThat(lease.state()).isEqualTo(LeaseState.HELD);
		assertThat(curator.acquire(200, TimeUnit.MILLISECONDS)).isNull();
		lease.release();
		lease.release();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/one/leases")).isEmpty());
	}

	/**
	 * Curator's X holds every permit; our registry waits for one, holding the guard; a
	 * Curator client C queues for the guard. With {@code expire}, our session is closed
	 * on the server while our client is cut off, C takes the guard and adds its lease,
	 * and only then does our client learn of it. When X returns a permit, somebody must
	 * take it at once: a lease added without the guard, behind C's, would leave both
	 * waiting, C by Curator's count of all leases and ours by its place, until a wait ran
	 * out.
	 */
	@TimingSensitive
	@ParameterizedTest(name = "{0} permits, session expired: {1}")
	@CsvSource({ "1, true", "2, true", "1, false", "2, false" })
	void aFreedPermitIsTakenAtOnceWhenCuratorClientsQueueOnTheGuard(int permits, boolean expire) throws Exception {
		String path = "/locks/guarded";
		CuratorFramework observer = this.zk.newClient();
		InterProcessSemaphoreV2 x = new InterProcessSemaphoreV2(this.zk.newClient(), path, permits);
		Collection<Lease> xLeases = x.acquire(permits, 10, TimeUnit.SECONDS);
		assertThat(xLeases).hasSize(permits);
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework ourClient = this.zk.newClient(proxy.connectString());
		ZkSemaphore ours = this.zk.newRegistry(ourClient).obtainSemaphore("guarded", permits);
		CompletableFuture<ZkLease> ourWait = CompletableFuture.supplyAsync(() -> ours.acquire(WAIT),
				TestThreads.EXECUTOR);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children(path + "/leases").size() == permits + 1);
		InterProcessSemaphoreV2 c = new InterProcessSemaphoreV2(this.zk.newClient(), path, permits);
		CompletableFuture<Lease> theirWait = CompletableFuture.supplyAsync(() -> {
			try {
				return c.acquire(WAIT.toSeconds(), TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children(path + "/locks").size() == 2);
		if (expire) {
			long session = ourClient.getZookeeperClient().getZooKeeper().getSessionId();
			byte[] password = ourClient.getZookeeperClient().getZooKeeper().getSessionPasswd();
			// Cut off, our client cannot hear of the expiry before C has taken the guard
			proxy.refuse(true);
			assertThat(ServerSideExpiry.expire(this.zk.connectString(), session, password,
					(int) InProcessZooKeeper.SESSION_TIMEOUT.toMillis(), Duration.ofSeconds(10), () -> {
					}))
				.isEqualTo(session);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> ownersOf(observer, path + "/leases").size() == permits + 1
						&& !ownersOf(observer, path + "/leases").contains(session)
						&& ownersOf(observer, path + "/locks").size() == 1);
			proxy.refuse(false);
			// Back on a new session, ours queues again: for the guard, or (before the
			// fix)
			// for a permit, with a lease behind C's
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				long now = ourClient.getZookeeperClient().getZooKeeper().getSessionId();
				return now != session && (ownersOf(observer, path + "/locks").contains(now)
						|| ownersOf(observer, path + "/leases").contains(now));
			});
		}
		assertThat(ourWait).isNotDone();
		assertThat(theirWait).isNotDone();
		long returned = System.nanoTime();
		x.returnLease(xLeases.iterator().next());
		await("somebody takes the permit returned").atMost(PROMPTLY)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> ourWait.isDone() || theirWait.isDone());
		Duration taken = Duration.ofNanos(System.nanoTime() - returned);
		assertThat(taken).isLessThan(PROMPTLY);
		// Then the other, as permits come back
		boolean oursFirst = ourWait.isDone();
		if (oursFirst) {
			ourWait.get().release();
		}
		else {
			c.returnLease(theirWait.get());
		}
		x.returnAll(xLeases.stream().skip(1).toList());
		if (oursFirst) {
			c.returnLease(theirWait.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		else {
			ZkLease ourLease = ourWait.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			assertThat(ourLease.state()).isEqualTo(LeaseState.HELD);
			ourLease.release();
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children(path + "/leases")).isEmpty());
	}

	/**
	 * The sessions that own a path's children.
	 */
	private static List<Long> ownersOf(CuratorFramework observer, String path) throws Exception {
		List<Long> owners = new ArrayList<>();
		if (observer.checkExists().forPath(path) == null) {
			return owners;
		}
		for (String child : observer.getChildren().forPath(path)) {
			Stat stat = observer.checkExists().forPath(path + "/" + child);
			if (stat != null) {
				owners.add(stat.getEphemeralOwner());
			}
		}
		return owners;
	}

	@Test
	void theEndpointSnapshotShowsLeasesAndPermits() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkSemaphore semaphore = registry.obtainSemaphore("seen", 4);
		ZkLease a = semaphore.acquire(Duration.ofSeconds(5));
		ZkLease b = semaphore.acquire(Duration.ofSeconds(5));
		assertThat(registry.localLocks()).singleElement().satisfies((info) -> {
			assertThat(info.kind()).isEqualTo(LockKind.SEMAPHORE);
			assertThat(info.holds()).isEqualTo(2);
			assertThat(info.permits()).isEqualTo(4);
			assertThat(info.held()).isTrue();
		});
		a.release();
		b.release();
		assertThat(registry.localLocks()).isEmpty();
		assertThat(registry.size()).isZero();
	}

	@Test
	void aCallerWaitingForAPermitIsShownAsTheSemaphoresNotAsAnExclusiveLock() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkSemaphore semaphore = registry.obtainSemaphore("full", 1);
		ZkLease taken = semaphore.acquire(Duration.ofSeconds(5));
		// Holds the semaphore's guard mutex while it waits for the permit, as Curator
		// does
		CompletableFuture<ZkLease> waiting = CompletableFuture.supplyAsync(() -> semaphore.acquire(WAIT),
				TestThreads.EXECUTOR);
		eventually().until(() -> registry.localLocks()
			.stream()
			.anyMatch((info) -> info.path().endsWith("/full/locks") && info.held()));
		assertThat(registry.localLocks()).hasSize(2)
			.allSatisfy((info) -> assertThat(info.kind()).as(info.path()).isEqualTo(LockKind.SEMAPHORE));
		taken.release();
		waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS).release();
		eventually().until(() -> registry.localLocks().isEmpty());
	}

	@Test
	void aSemaphoreNeedsAPermit() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtainSemaphore("none", 0))
			.withMessageContaining("'none'")
			.withMessageContaining("0");
		assertThat(this.zk.children("/locks")).doesNotContain("none");
	}

}
