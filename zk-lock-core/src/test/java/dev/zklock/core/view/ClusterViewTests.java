package dev.zklock.core.view;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LeadershipRecorder;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.test.ServerSideExpiry;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.registry.ZkLockRegistry;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The cluster view on a real ZooKeeper server: every key's holder and queue across
 * instances and plain Curator recipes, merged with the instances' reports, paged by
 * prefix, bounded, and blind to nodes that are not locks.
 */
@Timeout(60)
class ClusterViewTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final ViewOptions OPTIONS = new ViewOptions("/zklock-instances", LeaderGroup.DEFAULT_ROOT_PATH, 100,
			100, Duration.ofMillis(50), Duration.ofMillis(500));

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void showsEveryKeysHolderAndQueueAcrossInstancesAndCurator() throws Exception {
		ZkLockRegistry a = this.zk.newRegistry();
		ZkLockRegistry b = this.zk.newRegistry();
		a.publishReports(OPTIONS);
		b.publishReports(OPTIONS);
		ZkLock held = a.obtain("stock:1");
		CountDownLatch release = new CountDownLatch(1);
		Thread holder = new Thread(() -> {
			held.lock();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				held.unlock();
			}
		}, "order-worker-1");
		holder.start();
		eventually().until(() -> a.heldCount() == 1);
		CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
			ZkLock lock = b.obtain("stock:1");
			lock.lock();
			lock.unlock();
		});
		eventually().until(() -> a.participants("stock:1").size() == 2);
		CuratorFramework curator = this.zk.newClient();
		InterProcessMutex mutex = new InterProcessMutex(curator, "/locks/stock:1");
		CompletableFuture<Boolean> curatorWaits = CompletableFuture.supplyAsync(() -> {
			try {
				boolean got = mutex.acquire(30, TimeUnit.SECONDS);
				if (got) {
					mutex.release();
				}
				return got;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(curator, "/locks/pool", 2);
		Lease permit = semaphore.acquire();
		a.joinLeadership(LeaderGroup.named("billing"), new LeadershipRecorder()).awaitLeadership(WAIT);
		eventually().until(() -> a.participants("stock:1").size() == 3);
		String aId = a.candidates().get(0).participantId();
		assertThat(aId).contains("@");

		eventually().untilAsserted(() -> {
			ClusterView view = b.clusterView(ViewRequest.firstPage(), OPTIONS);
			assertThat(view.keys()).extracting(KeyView::key).containsExactly("pool", "stock:1");
			KeyView stock = view.keys().get(1);
			assertThat(stock.kind()).isEqualTo(LockKind.EXCLUSIVE);
			assertThat(stock.holders()).singleElement().satisfies((node) -> {
				assertThat(node.owner()).isEqualTo(aId);
				assertThat(node.reportedBy()).isEqualTo(aId);
				assertThat(node.thread()).isEqualTo("order-worker-1");
				assertThat(node.heldSince()).isNotNull();
				assertThat(node.leaseState()).isEqualTo(LeaseState.HELD);
				assertThat(node.fencingToken()).isPositive();
			});
			assertThat(stock.waiters()).hasSize(2);
			NodeView bWaits = stock.waiters().get(0);
			assertThat(bWaits.reportedBy()).as("b reads itself").isEqualTo(aId);
			assertThat(bWaits.sessionId()).isEqualTo(view.instances().get(0).sessionId());
			assertThat(stock.holders().get(0).sessionId()).isEqualTo(view.instances().get(1).sessionId());
			assertThat(bWaits.localWaiters()).singleElement()
				.extracting(LocalWaiter::mode)
				.isEqualTo(LocalWaiter.Mode.EXCLUSIVE);
			NodeView curatorWaits2 = stock.waiters().get(1);
			assertThat(curatorWaits2.reportedBy()).as("a plain Curator mutex reports nothing").isNull();
			assertThat(curatorWaits2.thread()).isNull();
			assertThat(curatorWaits2.waited().isNegative()).isFalse();
			KeyView pool = view.keys().get(0);
			assertThat(pool.kind()).isEqualTo(LockKind.SEMAPHORE);
			assertThat(pool.holders()).singleElement().extracting(NodeView::mode).isEqualTo(LocalWaiter.Mode.SEMAPHORE);
			assertThat(view.groups()).singleElement().satisfies((group) -> {
				assertThat(group.group()).isEqualTo("billing");
				assertThat(group.members()).singleElement().satisfies((leader) -> {
					assertThat(leader.owner()).isEqualTo(aId);
					assertThat(leader.heldSince()).as("when its term began").isNotNull();
				});
			});
			assertThat(view.instances()).hasSize(2);
			assertThat(view.instances().get(0).self()).isTrue();
			assertThat(view.instances().get(1).participantId()).isEqualTo(aId);
			assertThat(view.instances().get(1).holds()).isEqualTo(1);
			assertThat(view.keysUnderRoot()).isEqualTo(2);
		});
		semaphore.returnLease(permit);
		release.countDown();
		holder.join(WAIT.toMillis());
		waiter.get(30, TimeUnit.SECONDS);
		assertThat(curatorWaits.get(30, TimeUnit.SECONDS)).isTrue();
		// The row follows the release: b's own waiter held and let go, the Curator one
		// too
		eventually().untilAsserted(() -> assertThat(b.clusterView(ViewRequest.firstPage(), OPTIONS).keys())
			.noneMatch((key) -> key.key().equals("stock:1")));
	}

	@Test
	void readAndWriteHoldersAreTheWriterOrTheReadersAheadOfIt() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework curator = this.zk.newClient();
		InterProcessReadWriteLock rw = new InterProcessReadWriteLock(curator, "/locks/catalog");
		rw.readLock().acquire();
		ZkLock read = registry.obtainReadWrite("catalog").readLock();
		read.acquire(WAIT);
		ClusterView view = registry.clusterView(ViewRequest.firstPage(), OPTIONS);
		KeyView catalog = view.keys().get(0);
		assertThat(catalog.kind()).isEqualTo(LockKind.READ_WRITE);
		assertThat(catalog.holders()).hasSize(2).allMatch((node) -> node.mode() == LocalWaiter.Mode.READ);
		read.unlock();
		rw.readLock().release();
	}

	@Test
	void pagesByPrefixInKeyOrder() throws Exception {
		CuratorFramework curator = this.zk.newClient();
		for (String key : List.of("a:1", "a:2", "a:3", "b:1")) {
			curator.create()
				.creatingParentContainersIfNeeded()
				.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
				.forPath("/locks/" + key + "/lock-");
		}
		ZkLockRegistry registry = this.zk.newRegistry();
		ClusterView first = registry.clusterView(new ViewRequest("a:", null, 2), OPTIONS);
		assertThat(first.keys()).extracting(KeyView::key).containsExactly("a:1", "a:2");
		assertThat(first.nextAfter()).isEqualTo("a:2");
		ClusterView second = registry.clusterView(new ViewRequest("a:", first.nextAfter(), 2), OPTIONS);
		assertThat(second.keys()).extracting(KeyView::key).containsExactly("a:3");
		assertThat(second.nextAfter()).isNull();
		assertThat(second.keysUnderRoot()).isEqualTo(4);
	}

	@Test
	void showsOnlyEphemeralNodesNamedByALockRecipe() throws Exception {
		CuratorFramework curator = this.zk.newClient();
		curator.create().creatingParentsIfNeeded().forPath("/locks/odd/lock-0000000001", "persistent".getBytes());
		curator.create().forPath("/locks/odd/config", "secret".getBytes(StandardCharsets.UTF_8));
		curator.create().withMode(CreateMode.EPHEMERAL).forPath("/locks/odd/notalock", "x".getBytes());
		ZkLockRegistry registry = this.zk.newRegistry();
		ClusterView view = registry.clusterView(ViewRequest.firstPage(), OPTIONS);
		assertThat(view.keys()).isEmpty();
		assertThat(view.keysUnderRoot()).isEqualTo(1);
	}

	@Test
	void refusesARootPathWithMoreKeysThanTheBoundBeforeListingIt() throws Exception {
		CuratorFramework curator = this.zk.newClient();
		for (int i = 0; i < 6; i++) {
			curator.create().creatingParentsIfNeeded().forPath("/locks/k" + i);
		}
		ZkLockRegistry registry = this.zk.newRegistry();
		ViewOptions five = new ViewOptions("/zklock-instances", null, 5, 5, Duration.ofMillis(50),
				Duration.ofMillis(500));
		assertThatExceptionOfType(ViewTooLargeException.class)
			.isThrownBy(() -> registry.clusterView(ViewRequest.firstPage(), five))
			.withMessageContaining("/locks has 6 children, more than the view lists (5)");
		assertThat(curator.checkExists().forPath("/zklock-instances")).as("a read writes nothing").isNull();
	}

	@Test
	void aRootPathOfAHundredThousandKeysIsAnsweredAtOnceWithoutListingIt() throws Exception {
		CuratorFramework curator = this.zk.newClient();
		curator.create().forPath("/locks");
		ZooKeeper zooKeeper = curator.getZookeeperClient().getZooKeeper();
		for (int batch = 0; batch < 100; batch++) {
			List<Op> creates = new ArrayList<>();
			for (int i = 0; i < 1000; i++) {
				creates.add(Op.create("/locks/key-" + batch + "-" + i, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
						CreateMode.PERSISTENT));
			}
			zooKeeper.multi(creates);
		}
		ZkLockRegistry registry = this.zk.newRegistry(curator);
		long started = System.nanoTime();
		assertThatExceptionOfType(ViewTooLargeException.class)
			.isThrownBy(() -> registry.clusterView(ViewRequest.firstPage(), ViewOptions.defaults()))
			.withMessageContaining("/locks has 100000 children, more than the view lists (10000)");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("one stat, not a list").isLessThan(WAIT);
		assertThat(registry.connectionStatus().state()).as("the client kept its connection")
			.isEqualTo(ConnectionState.CONNECTED);
	}

	@Test
	void refusesMalformedRequestsNamingTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ViewRequest("a/b", null, 10))
			.withMessageContaining("Key prefix 'a/b' cannot start a lock key");
		assertThatIllegalArgumentException().isThrownBy(() -> new ViewRequest("x".repeat(5000), null, 10))
			.withMessageContaining("at most 1024 characters");
		assertThatIllegalArgumentException().isThrownBy(() -> new ViewRequest("a\u0000", null, 10))
			.withMessageContaining("control character U+0000");
		assertThatIllegalArgumentException().isThrownBy(() -> new ViewRequest("", null, 0))
			.withMessageContaining("between 1 and 1000, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new ViewRequest("", null, 1_000_000))
			.withMessageContaining("but was 1000000");
	}

	@Test
	void refusesAnInstancesPathInsideTheLockRoot() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.publishReports(OPTIONS.withInstancesPath("/locks/instances")))
			.withMessageContaining("'/locks/instances' must be apart from the lock root path '/locks'");
	}

	@Test
	void aHoldLostToAnExpiredSessionStaysInViewAsLostWhileItsInstanceReportsIt() throws Exception {
		CuratorFramework client = this.zk.newClient();
		ZkLockRegistry a = this.zk.newRegistry(client);
		a.publishReports(OPTIONS);
		ZkLockRegistry b = this.zk.newRegistry();
		ZkLease lease = a.acquireLease("invoice:7", WAIT);
		eventually()
			.untilAsserted(() -> assertThat(b.clusterView(ViewRequest.firstPage(), OPTIONS).keys()).singleElement()
				.satisfies((key) -> assertThat(key.holders()).singleElement()
					.extracting(NodeView::leaseState)
					.isEqualTo(LeaseState.HELD)));
		assertThat(ServerSideExpiry.expire(this.zk.connectString(), client, 4000, WAIT)).isNotZero();
		eventually().until(() -> lease.state() == LeaseState.LOST);
		eventually().untilAsserted(() -> {
			ClusterView view = b.clusterView(ViewRequest.firstPage(), OPTIONS);
			assertThat(view.keys()).singleElement().satisfies((key) -> {
				assertThat(key.holders()).isEmpty();
				assertThat(key.lost()).singleElement().satisfies((node) -> {
					assertThat(node.leaseState()).isEqualTo(LeaseState.LOST);
					assertThat(node.reportedBy()).isEqualTo(node.owner()).contains("@");
				});
			});
		});
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		eventually().untilAsserted(() -> assertThat(b.clusterView(ViewRequest.firstPage(), OPTIONS).keys()).isEmpty());
	}

}
