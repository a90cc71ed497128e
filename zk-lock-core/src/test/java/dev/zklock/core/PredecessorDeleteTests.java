package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.zookeeper.ClientWatchers;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.internal.NodeNames;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A participant waiting behind a node holds, without reading the child list again, when
 * that node's delete makes it first, and only then: not when another waiter ahead of it
 * goes while the holder stays, and not when its own node went first.
 */
@Timeout(60)
class PredecessorDeleteTests {

	/**
	 * How many round trips of its own the registry's client makes while two waiters of it
	 * must stay quiet: each turn of a waiter that looks again is a round trip too.
	 */
	private static final int QUIET_ROUND_TRIPS = 20;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void aWaiterWhoseHolderGoesHoldsOnANodeThatExists() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/behind-holder");
		curator.acquire();
		ZkLock lock = this.zk.newRegistry().obtain("behind-holder");
		CompletableFuture<Hold> waiter = holdOnOtherThread(client, lock, "/locks/behind-holder");
		awaitNodes("/locks/behind-holder", 2);
		curator.release();
		Hold hold = waiter.get(30, TimeUnit.SECONDS);
		assertThat(hold.nodes()).singleElement().satisfies((node) -> assertThat(node.czxid()).isEqualTo(hold.token()));
	}

	@Test
	void aWaiterBehindAnotherWaiterWaitsForTheHolderWhenThatWaiterGoes() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/behind-waiter");
		curator.acquire();
		String between = queueAs(client, "/locks/behind-waiter/lock-");
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLock lock = this.zk.newRegistry(this.zk.newClient(proxy.connectString())).obtain("behind-waiter");
		CompletableFuture<Hold> waiter = holdOnOtherThread(client, lock, "/locks/behind-waiter");
		awaitNodes("/locks/behind-waiter", 3);
		Hold hold = inOnlyAfter(client, proxy, between, waiter, curator::release);
		assertThat(hold.nodes()).singleElement().satisfies((node) -> assertThat(node.czxid()).isEqualTo(hold.token()));
	}

	/**
	 * Also after a revocation request on the waiting node: its event consumes the watch
	 * that would tell the delete.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aWaiterWhoseNodeWasDeletedByHandHoldsOnlyOnANewNode(boolean revocationRequestedFirst) throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/deleted-waiter");
		curator.acquire();
		ZkLock lock = this.zk.newRegistry().obtain("deleted-waiter");
		CompletableFuture<Hold> waiter = holdOnOtherThread(client, lock, "/locks/deleted-waiter");
		awaitNodes("/locks/deleted-waiter", 2);
		String ours = NodeNames.inQueueOrder(this.zk.children("/locks/deleted-waiter")).get(1);
		if (revocationRequestedFirst) {
			Revoker.attemptRevoke(client, "/locks/deleted-waiter/" + ours);
		}
		client.delete().forPath("/locks/deleted-waiter/" + ours);
		curator.release();
		Hold hold = waiter.get(30, TimeUnit.SECONDS);
		assertThat(hold.nodes()).as("the node held exists").singleElement().satisfies((node) -> {
			assertThat(node.name()).isNotEqualTo(ours);
			assertThat(node.czxid()).isEqualTo(hold.token());
		});
	}

	/**
	 * A delete event handled long after it came (the event thread kept busy by another
	 * watcher of the same client) is no proof: meanwhile the connection went, the session
	 * expired with our node, and the participant behind us got in. Held on that event,
	 * the waiter would hold while the connection is still down, on a node that is gone;
	 * it must hold only once it is connected again, on a new node.
	 */
	@Test
	void aLateDeleteEventIsNoProofThatOurNodeIsStillThere() throws Exception {
		CuratorFramework direct = this.zk.newClient();
		InterProcessMutex holder = new InterProcessMutex(direct, "/locks/late-event");
		holder.acquire();
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework proxied = this.zk.newClient(proxy.connectString());
		ZkLock lock = this.zk.newRegistry(proxied).obtain("late-event");
		CompletableFuture<Hold> waiter = holdOnOtherThread(direct, lock, "/locks/late-event");
		awaitNodes("/locks/late-event", 2);
		InterProcessMutex behind = new InterProcessMutex(this.zk.newClient(), "/locks/late-event");
		CompletableFuture<Boolean> behindHolds = CompletableFuture.supplyAsync(() -> {
			try {
				boolean got = behind.acquire(30, TimeUnit.SECONDS);
				if (got) {
					behind.release();
				}
				return got;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		awaitNodes("/locks/late-event", 3);
		ZooKeeper zooKeeper = proxied.getZookeeperClient().getZooKeeper();
		String holderNode = "/locks/late-event/" + NodeNames.inQueueOrder(this.zk.children("/locks/late-event")).get(0);
		// The waiter watches the holder's node
		eventually().until(() -> ClientWatchers.dataWatched(zooKeeper, holderNode));
		// Keep the proxied client's event thread busy for longer than the session lives
		CountDownLatch busy = new CountDownLatch(1);
		CountDownLatch free = new CountDownLatch(1);
		zooKeeper.exists("/busy", (event) -> {
			busy.countDown();
			try {
				free.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		direct.create().forPath("/busy");
		assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
		// The delete event reaches the client (which forgets the watch as it queues the
		// event) and waits behind the busy watcher
		holder.release();
		eventually().until(() -> !ClientWatchers.dataWatched(zooKeeper, holderNode));
		proxy.blackhole(true);
		try {
			// Our session expires, our node goes with it, and the one behind gets in
			assertThat(behindHolds.get(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			free.countDown();
		}
		proxy.blackhole(false);
		Hold hold = waiter.get(30, TimeUnit.SECONDS);
		assertThat(hold.nodes()).as("in on an event older than its session: the node held is gone")
			.singleElement()
			.satisfies((node) -> assertThat(node.czxid()).isEqualTo(hold.token()));
	}

	@Test
	void aWriterBehindAWaitingReaderWaitsForTheHoldingWriterWhenThatOneGoes() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/writer-behind");
		curator.writeLock().acquire();
		String waitingReader = queueAs(client, "/locks/writer-behind/__READ__");
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkReadWriteLock lock = this.zk.newRegistry(this.zk.newClient(proxy.connectString()))
			.obtainReadWrite("writer-behind");
		CompletableFuture<Hold> writer = holdOnOtherThread(client, lock.writeLock(), "/locks/writer-behind");
		awaitNodes("/locks/writer-behind", 3);
		assertThat(inOnlyAfter(client, proxy, waitingReader, writer, curator.writeLock()::release).nodes()).hasSize(1);
	}

	@Test
	void aReaderBehindAWaitingWriterJoinsTheHoldingReaderWhenThatWriterGoes() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/reader-behind");
		curator.readLock().acquire();
		String waitingWriter = queueAs(client, "/locks/reader-behind/__WRIT__");
		ZkReadWriteLock lock = this.zk.newRegistry().obtainReadWrite("reader-behind");
		CompletableFuture<Hold> reader = holdOnOtherThread(client, lock.readLock(), "/locks/reader-behind");
		awaitNodes("/locks/reader-behind", 3);
		client.delete().forPath(waitingWriter);
		assertThat(reader.get(30, TimeUnit.SECONDS).nodes()).as("the Curator reader and ours").hasSize(2);
		curator.readLock().release();
	}

	@Test
	void twoRecipesOfOneRegistryWaitingOnOneNodeLeaveEachOtherWaiting() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/one-node");
		curator.writeLock().acquire();
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework proxied = this.zk.newClient(proxy.connectString());
		ZkLockRegistry registry = this.zk.newRegistry(proxied);
		// Two recipes on one path: the exclusive lock waits behind Curator's writer and
		// watches its own node too; the reader counts that node as a writer's and waits
		// behind it: two waiters on one node
		CompletableFuture<Hold> exclusive = holdOnOtherThread(client, registry.obtain("one-node"), "/locks/one-node");
		awaitNodes("/locks/one-node", 2);
		CompletableFuture<Hold> reader = holdOnOtherThread(client, registry.obtainReadWrite("one-node").readLock(),
				"/locks/one-node");
		awaitNodes("/locks/one-node", 3);
		long listed = proxy.requests(OpCode.getChildren);
		// Each took the other's watch on that node away: a list and a watch read per
		// turn, a round trip each, hundreds a second. Counted over round trips of the
		// same client rather than a time: a loaded machine slows both alike. The reader's
		// first list, sent with its create, may be counted after the count above
		ZooKeeper zooKeeper = proxied.getZookeeperClient().getZooKeeper();
		for (int i = 0; i < QUIET_ROUND_TRIPS; i++) {
			zooKeeper.exists("/locks/one-node", false);
		}
		assertThat(proxy.requests(OpCode.exists)).as("our round trips, through the proxy")
			.isGreaterThanOrEqualTo(QUIET_ROUND_TRIPS);
		assertThat(proxy.requests(OpCode.getChildren) - listed).as("child lists read while waiting")
			.isLessThanOrEqualTo(1);
		assertThat(exclusive).isNotDone();
		assertThat(reader).isNotDone();
		curator.writeLock().release();
		assertThat(exclusive.get(30, TimeUnit.SECONDS).nodes()).isNotEmpty();
		assertThat(reader.get(30, TimeUnit.SECONDS).nodes()).isNotEmpty();
	}

	/**
	 * Queue another participant's node, as a waiting Curator recipe would.
	 * @param prefix the lock path and the recipe's lock name
	 */
	private static String queueAs(CuratorFramework client, String prefix) throws Exception {
		return client.create().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(prefix);
	}

	/**
	 * Delete another waiter's node ahead of ours: ours must stay out until the holder
	 * releases, then get in. Ours has taken the delete in once it reads (and watches) a
	 * node again through {@code proxy}: the one now ahead of it, after the child list.
	 * Holding on the delete, it would read none, and be done.
	 */
	private static Hold inOnlyAfter(CuratorFramework client, ZkFaultProxy proxy, String waiterAhead,
			CompletableFuture<Hold> ours, Release holderRelease) throws Exception {
		long reads = proxy.requests(OpCode.getData);
		client.delete().forPath(waiterAhead);
		eventually().until(() -> ours.isDone() || proxy.requests(OpCode.getData) > reads);
		assertThat(ours).as("in while the holder holds").isNotDone();
		holderRelease.run();
		return ours.get(30, TimeUnit.SECONDS);
	}

	private void awaitNodes(String lockPath, int count) {
		eventually().until(() -> this.zk.children(lockPath).size() == count);
	}

	/**
	 * Take the lock on another thread, note the lock path's nodes while holding, and let
	 * go.
	 */
	private CompletableFuture<Hold> holdOnOtherThread(CuratorFramework client, Lock lock, String lockPath) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				if (!lock.tryLock(30, TimeUnit.SECONDS)) {
					throw new IllegalStateException("not acquired");
				}
				try {
					long token = (lock instanceof ZkLock zkLock) ? zkLock.fencingToken() : 0;
					return new Hold(token, nodes(client, lockPath));
				}
				finally {
					lock.unlock();
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
	}

	private static List<Node> nodes(CuratorFramework client, String lockPath) throws Exception {
		List<Node> nodes = new ArrayList<>();
		for (String child : client.getChildren().forPath(lockPath)) {
			Stat stat = client.checkExists().forPath(lockPath + "/" + child);
			if (stat != null) {
				nodes.add(new Node(child, stat.getCzxid()));
			}
		}
		return nodes;
	}

	private interface Release {

		void run() throws Exception;

	}

	private record Hold(long token, List<Node> nodes) {
	}

	private record Node(String name, long czxid) {
	}

}
