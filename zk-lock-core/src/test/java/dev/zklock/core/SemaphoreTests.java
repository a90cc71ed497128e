package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.zklock.core.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores on real ZooKeeper servers: registries on separate clients stand for separate
 * JVMs, and plain Curator {@link InterProcessSemaphoreV2}s share the permits.
 */
@Timeout(120)
class SemaphoreTests {

	@RegisterExtension
	final InProcessZooKeeper zk = new InProcessZooKeeper();

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
		});
		Thread.sleep(200);
		assertThat(waiting).isNotDone();
		// Released by another thread than took it
		CompletableFuture.runAsync(first::release).get(10, TimeUnit.SECONDS);
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
		CompletableFuture<ZkLease> waiting = CompletableFuture.supplyAsync(() -> ours.acquire(Duration.ofSeconds(20)));
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
	void aSemaphoreNeedsAPermit() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtainSemaphore("none", 0))
			.withMessageContaining("'none'")
			.withMessageContaining("0");
		assertThat(this.zk.children("/locks")).doesNotContain("none");
	}

}
