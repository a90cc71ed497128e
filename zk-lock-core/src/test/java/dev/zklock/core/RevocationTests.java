package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.zklock.core.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Revocation requests, as Curator makes and hears them, on real ZooKeeper servers.
 */
@Timeout(60)
class RevocationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = new InProcessZooKeeper();

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
		assertThat(this.zk.newRegistry().requestRevocation("theirs")).as("nobody holds").isEmpty();
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
		});
		// The writer queues only once both readers hold: queued before the second reader,
		// it would keep that reader waiting, and only one reader would be asked
		assertThat(secondHolds.await(20, TimeUnit.SECONDS)).as("the second reader holds").isTrue();
		CompletableFuture<Boolean> write = CompletableFuture.supplyAsync(() -> {
			writer.writeLock().acquire(Duration.ofSeconds(20));
			writer.writeLock().unlock();
			return true;
		});
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
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.waitingCount() == 1);
		lock.unlock();
		assertThat(next.get(20, TimeUnit.SECONDS)).isTrue();
		assertThat(told).as("the earlier hold's listener").hasValue(0);
		assertThat(node).as("the same node was handed on").isNotNull();
	}

}
