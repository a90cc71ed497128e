package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Revocation requests, as Curator makes and hears them, on real ZooKeeper servers.
 */
@Timeout(60)
class RevocationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	/**
	 * Threads of the test's own: its tasks block, and the common pool may have a single
	 * worker on a 2-core machine, which a blocked task would keep from the next one.
	 */
	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		this.executor.shutdownNow();
	}

	@Test
	void aHolderThatOptedInHearsCuratorsRevoker() throws Exception {
		ZkLock lock = this.zk.newRegistry().obtain("revocable");
		lock.lock();
		CountDownLatch told = new CountDownLatch(1);
		lock.onRevocationRequested(told::countDown);
		assertThat(lock.isRevocationRequested()).isFalse();
		String node = this.zk.children("/locks/revocable").get(0);
		Revoker.attemptRevoke(this.zk.newClient(), "/locks/revocable/" + node);
		assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.isRevocationRequested()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).as("a request takes nothing away").isTrue();
		AtomicInteger late = new AtomicInteger();
		lock.onRevocationRequested(late::incrementAndGet);
		assertThat(late).as("told at once when registered after the request").hasValue(1);
		lock.unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/revocable")).isEmpty());
	}

	@Test
	void requestRevocationReachesACuratorHolderThatMadeItRevocable() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/theirs");
		CountDownLatch told = new CountDownLatch(1);
		curator.makeRevocable((revoked) -> told.countDown());
		curator.acquire();
		try {
			List<String> asked = this.zk.newRegistry().requestRevocation("theirs");
			assertThat(asked).singleElement().asString().startsWith("/locks/theirs/").contains("lock-");
			assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			curator.release();
		}
		assertThatExceptionOfType(RevocationRefusedException.class)
			.isThrownBy(() -> this.zk.newRegistry().requestRevocation("theirs"))
			.as("nobody holds")
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RevocationRefusedException.Reason.NOT_HELD))
			.withMessageContaining("'theirs'")
			.withMessageContaining("nobody holds it");
	}

	@Test
	void aKeyNobodyEverUsedIsRefused() throws Exception {
		assertThatExceptionOfType(RevocationRefusedException.class)
			.isThrownBy(() -> this.zk.newRegistry().requestRevocation("never"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RevocationRefusedException.Reason.NOT_HELD))
			.withMessage("Revocation of lock 'never' (ZooKeeper path /locks/never) refused, nothing written: "
					+ "nobody holds it");
		assertThat(this.zk.children("/locks")).doesNotContain("never");
	}

	/**
	 * A semaphore's key holds its leases and guard under the path: neither is a lock
	 * node, and neither may be written a request, nor any lease under them.
	 */
	@Test
	void aSemaphoreKeyIsRefusedAndNothingIsWritten() throws Exception {
		ZkSemaphore ours = this.zk.newRegistry().obtainSemaphore("pool", 3);
		ZkLease first = ours.acquire(Duration.ofSeconds(10));
		ZkLease second = ours.acquire(Duration.ofSeconds(10));
		Lease curators = new InterProcessSemaphoreV2(this.zk.newClient(), "/locks/pool", 3).acquire(10,
				TimeUnit.SECONDS);
		Map<String, Stat> before = stats("/locks/pool");
		assertThat(before).containsKeys("/locks/pool/leases", "/locks/pool/locks").hasSizeGreaterThan(4);
		assertThatExceptionOfType(RevocationRefusedException.class)
			.isThrownBy(() -> this.zk.newRegistry().requestRevocation("pool"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RevocationRefusedException.Reason.NOT_A_LOCK))
			.withMessageContaining("'pool'")
			.withMessageContaining("/locks/pool")
			.withMessageContaining("not a revocable lock")
			.withMessageContaining("semaphore");
		assertThat(stats("/locks/pool")).as("every node as it was").isEqualTo(before);
		assertThat(first.state()).isEqualTo(LeaseState.HELD);
		first.release();
		second.release();
		curators.close();
	}

	/**
	 * A key used as a semaphore and as a lock at once: the lock's holder is asked, the
	 * semaphore's nodes are left alone.
	 */
	@Test
	void onlyTheLockNodesOfAKeyAlsoUsedAsASemaphoreAreAsked() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLease permit = registry.obtainSemaphore("both", 2).acquire(Duration.ofSeconds(10));
		ZkLock lock = registry.obtain("both");
		lock.lock();
		CountDownLatch told = new CountDownLatch(1);
		lock.onRevocationRequested(told::countDown);
		try {
			Map<String, Stat> semaphore = stats("/locks/both/leases");
			semaphore.putAll(stats("/locks/both/locks"));
			List<String> asked = this.zk.newRegistry().requestRevocation("both");
			assertThat(asked).singleElement().asString().startsWith("/locks/both/_c_").contains("lock-");
			Map<String, Stat> after = stats("/locks/both/leases");
			after.putAll(stats("/locks/both/locks"));
			assertThat(after).isEqualTo(semaphore);
			assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			lock.unlock();
			permit.release();
		}
	}

	/**
	 * Nodes that only look like lock nodes, persistent ones anyone may create with a lock
	 * node's name and data of their own, are no lock: neither listed as participants nor
	 * written a request; the holder beside them is.
	 */
	@Test
	void persistentNodesNamedAsLockNodesAreNeitherListedNorWritten() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock lock = registry.obtain("mixed");
		lock.lock();
		CountDownLatch told = new CountDownLatch(1);
		lock.onRevocationRequested(told::countDown);
		try {
			String held = this.zk.children("/locks/mixed").get(0);
			// Behind the holder: named as lock nodes, they would otherwise be queued
			// ahead
			CuratorFramework other = this.zk.newClient();
			other.create().forPath("/locks/mixed/lock-0000000007", "foreign-payload".getBytes());
			other.create()
				.forPath("/locks/mixed/_c_0b412ac5-3f7e-4c55-9d3a-1e0a2b3c4d5e-__WRIT__0000000008",
						"foreign-payload".getBytes());
			other.create().forPath("/locks/mixed/secret", "foreign-payload".getBytes());
			Map<String, Stat> foreign = stats("/locks/mixed");
			foreign.remove("/locks/mixed/" + held);
			assertThat(this.zk.newRegistry().participants("mixed")).singleElement()
				.satisfies((participant) -> assertThat(participant.node()).isEqualTo(held))
				.satisfies((participant) -> assertThat(participant.owner()).doesNotContain("foreign"));
			assertThat(this.zk.newRegistry().requestRevocation("mixed")).containsExactly("/locks/mixed/" + held);
			assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
			Map<String, Stat> after = stats("/locks/mixed");
			after.keySet().retainAll(foreign.keySet());
			foreign.remove("/locks/mixed");
			after.remove("/locks/mixed");
			assertThat(after).as("the foreign nodes as they were").isEqualTo(foreign);
			assertThat(other.getData().forPath("/locks/mixed/lock-0000000007")).asString().isEqualTo("foreign-payload");
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * A key with only foreign nodes under it: nobody is asked, nothing is written, and
	 * the refusal names none of them.
	 */
	@Test
	void aKeyWithOnlyForeignNodesIsRefusedWithoutNamingThem() throws Exception {
		CuratorFramework other = this.zk.newClient();
		other.create()
			.creatingParentsIfNeeded()
			.forPath("/locks/foreign/lock-0000000001", "foreign-payload".getBytes());
		other.create().forPath("/locks/foreign/secret", "foreign-payload".getBytes());
		Map<String, Stat> before = stats("/locks/foreign");
		assertThat(this.zk.newRegistry().participants("foreign")).isEmpty();
		assertThatExceptionOfType(RevocationRefusedException.class)
			.isThrownBy(() -> this.zk.newRegistry().requestRevocation("foreign"))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RevocationRefusedException.Reason.NOT_A_LOCK))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains("'foreign'")
				.contains("2 children")
				.doesNotContain("secret")
				.doesNotContain("lock-0000000001"));
		assertThat(stats("/locks/foreign")).as("every node as it was").isEqualTo(before);
		assertThat(other.getData().forPath("/locks/foreign/lock-0000000001")).asString().isEqualTo("foreign-payload");
	}

	/**
	 * Every node under a path, the path's own included, with its stat.
	 */
	private Map<String, Stat> stats(String path) throws Exception {
		return stats(this.zk.newClient(), path);
	}

	private static Map<String, Stat> stats(CuratorFramework client, String path) throws Exception {
		Map<String, Stat> stats = new TreeMap<>();
		stats.put(path, client.checkExists().forPath(path));
		for (String child : client.getChildren().forPath(path)) {
			stats.putAll(stats(client, path + "/" + child));
		}
		return stats;
	}

	@Test
	void everyReaderIsAskedAndTheWaitingWriterIsNot() throws Exception {
		ZkReadWriteLock first = this.zk.newRegistry().obtainReadWrite("doc");
		ZkReadWriteLock second = this.zk.newRegistry().obtainReadWrite("doc");
		ZkReadWriteLock writer = this.zk.newRegistry().obtainReadWrite("doc");
		CountDownLatch told = new CountDownLatch(2);
		CountDownLatch secondHolds = new CountDownLatch(1);
		first.readLock().lock();
		first.readLock().onRevocationRequested(told::countDown);
		CompletableFuture<Void> otherReader = CompletableFuture.runAsync(() -> {
			second.readLock().lock();
			second.readLock().onRevocationRequested(told::countDown);
			secondHolds.countDown();
			try {
				assertThat(told.await(20, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				second.readLock().unlock();
			}
		}, this.executor);
		// The writer queues only once both readers hold: queued before the second reader,
		// it would keep that reader waiting, and only one reader would be asked
		assertThat(secondHolds.await(20, TimeUnit.SECONDS)).as("the second reader holds").isTrue();
		CompletableFuture<Boolean> write = CompletableFuture.supplyAsync(() -> {
			writer.writeLock().acquire(Duration.ofSeconds(20));
			writer.writeLock().unlock();
			return true;
		}, this.executor);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/doc").size() == 3);
		List<String> asked = this.zk.newRegistry().requestRevocation("doc");
		assertThat(asked).hasSize(2).allSatisfy((node) -> assertThat(node).contains("__READ__"));
		assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
		first.readLock().unlock();
		otherReader.get(20, TimeUnit.SECONDS);
		assertThat(write.get(20, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aListenerEndsWithItsHoldEvenWhenTheNodeIsHandedOn() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock lock = registry.obtain("handed");
		AtomicInteger told = new AtomicInteger();
		lock.lock();
		lock.onRevocationRequested(told::incrementAndGet);
		String node = this.zk.children("/locks/handed").get(0);
		CompletableFuture<Boolean> next = CompletableFuture.supplyAsync(() -> {
			lock.lock();
			try {
				registry.requestRevocation("handed");
				CountDownLatch now = new CountDownLatch(1);
				lock.onRevocationRequested(now::countDown);
				return now.await(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				lock.unlock();
			}
		}, this.executor);
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.waitingCount() == 1);
		lock.unlock();
		assertThat(next.get(20, TimeUnit.SECONDS)).isTrue();
		assertThat(told).as("the earlier hold's listener").hasValue(0);
		assertThat(node).as("the same node was handed on").isNotNull();
	}

}
