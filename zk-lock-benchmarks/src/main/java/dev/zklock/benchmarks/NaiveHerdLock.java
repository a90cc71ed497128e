package dev.zklock.benchmarks;

import java.util.concurrent.CountDownLatch;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * The first lock of the ZooKeeper lock articles: one ephemeral node; whoever creates it
 * holds the lock; everyone else watches it with {@code exists} and, when it is deleted,
 * all of them race to create it again (the herd effect). Here only to be measured.
 */
final class NaiveHerdLock {

	private final CuratorFramework client;

	private final String path;

	NaiveHerdLock(CuratorFramework client, String path) {
		this.client = client;
		this.path = path;
	}

	void lock() throws Exception {
		while (true) {
			try {
				this.client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(this.path);
				return;
			}
			catch (KeeperException.NodeExistsException ex) {
				CountDownLatch deleted = new CountDownLatch(1);
				if (this.client.checkExists()
					.usingWatcher((Watcher) (event) -> deleted.countDown())
					.forPath(this.path) != null) {
					deleted.await();
				}
			}
		}
	}

	void unlock() throws Exception {
		this.client.delete().forPath(this.path);
	}

}
