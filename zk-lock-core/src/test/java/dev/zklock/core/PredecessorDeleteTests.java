package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.zklock.core.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A participant waiting behind a node holds, without reading the child list again, when
 * that node's delete makes it first, and only then: not when another waiter ahead of it
 * goes while the holder stays, and not when its own node went first.
 */
@Timeout(60)
class PredecessorDeleteTests {

	/** How long a waiter that must not get in is given to get in anyway. */
	private static final long NOT_IN_MS = 1500;

	@RegisterExtension
	final InProcessZooKeeper zk = new InProcessZooKeeper();

	@Test
	void aWaiterWhoseHolderGoesHoldsOnANodeThatExists() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/behind-holder");
		curator.acquire();
		ZkLock lock = this.zk.newRegistry().obtain("behind-holder");
		CompletableFuture<Hold> waiter = holdOnOtherThread(client, lock, "/locks/behind-holder");
		eventually().until(() -> this.zk.children("/locks/behind-holder").size() == 2);
		curator.release();
		Hold hold = waiter.get(30, TimeUnit.SECONDS);
		assertThat(hold.nodes()).singleElement().satisfies((node) -> assertThat(node.czxid()).isEqualTo(hold.token()));
	}

	@Test
	void aWaiterBehindAnotherWaiterWaitsForTheHolderWhenThatWaiterGoes() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/behind-waiter");
		curator.acquire();
		// Another participant queued behind the holder, as a waiting Curator mutex would
		String between = client.create()
			.withProtection()
			.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
			.forPath("/locks/behind-waiter/lock-");
		ZkLock lock = this.zk.newRegistry().obtain("behind-waiter");
		CompletableFuture<Hold> waiter = holdOnOtherThread(client, lock, "/locks/behind-waiter");
		eventually().until(() -> this.zk.children("/locks/behind-waiter").size() == 3);
		client.delete().forPath(between);
		Thread.sleep(NOT_IN_MS);
		assertThat(waiter).as("in while the holder holds").isNotDone();
		curator.release();
		Hold hold = waiter.get(30, TimeUnit.SECONDS);
		assertThat(hold.nodes()).singleElement().satisfies((node) -> assertThat(node.czxid()).isEqualTo(hold.token()));
	}

	@Test
	void aWaiterWhoseNodeWasDeletedByHandHoldsOnlyOnANewNode() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessMutex curator = new InterProcessMutex(client, "/locks/deleted-waiter");
		curator.acquire();
		ZkLock lock = this.zk.newRegistry().obtain("deleted-waiter");
		CompletableFuture<Hold> waiter = holdOnOtherThread(client, lock, "/locks/deleted-waiter");
		eventually().until(() -> this.zk.children("/locks/deleted-waiter").size() == 2);
		String ours = ZkParticipant.inQueueOrder(this.zk.children("/locks/deleted-waiter")).get(1);
		client.delete().forPath("/locks/deleted-waiter/" + ours);
		curator.release();
		Hold hold = waiter.get(30, TimeUnit.SECONDS);
		assertThat(hold.nodes()).as("the node held exists").singleElement().satisfies((node) -> {
			assertThat(node.name()).isNotEqualTo(ours);
			assertThat(node.czxid()).isEqualTo(hold.token());
		});
	}

	@Test
	void aWriterBehindAWaitingReaderWaitsForTheHoldingWriterWhenThatOneGoes() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/writer-behind");
		curator.writeLock().acquire();
		String waitingReader = client.create()
			.withProtection()
			.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
			.forPath("/locks/writer-behind/__READ__");
		ZkReadWriteLock lock = this.zk.newRegistry().obtainReadWrite("writer-behind");
		CompletableFuture<Hold> writer = holdOnOtherThread(client, lock.writeLock(), "/locks/writer-behind");
		eventually().until(() -> this.zk.children("/locks/writer-behind").size() == 3);
		client.delete().forPath(waitingReader);
		Thread.sleep(NOT_IN_MS);
		assertThat(writer).as("in while the other writer holds").isNotDone();
		curator.writeLock().release();
		assertThat(writer.get(30, TimeUnit.SECONDS).nodes()).hasSize(1);
	}

	@Test
	void aReaderBehindAWaitingWriterJoinsTheHoldingReaderWhenThatWriterGoes() throws Exception {
		CuratorFramework client = this.zk.newClient();
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/reader-behind");
		curator.readLock().acquire();
		String waitingWriter = client.create()
			.withProtection()
			.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
			.forPath("/locks/reader-behind/__WRIT__");
		ZkReadWriteLock lock = this.zk.newRegistry().obtainReadWrite("reader-behind");
		CompletableFuture<Hold> reader = holdOnOtherThread(client, lock.readLock(), "/locks/reader-behind");
		eventually().until(() -> this.zk.children("/locks/reader-behind").size() == 3);
		client.delete().forPath(waitingWriter);
		assertThat(reader.get(30, TimeUnit.SECONDS).nodes()).as("the Curator reader and ours").hasSize(2);
		curator.readLock().release();
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
		});
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

	private record Hold(long token, List<Node> nodes) {
	}

	private record Node(String name, long czxid) {
	}

}
