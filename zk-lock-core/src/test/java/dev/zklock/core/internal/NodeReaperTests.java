package dev.zklock.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.test.ZkFaultProxy;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link NodeReaper} on its own, under faults made by a {@link ZkFaultProxy}.
 */
@Timeout(90)
class NodeReaperTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void reaperKeepsFollowingTheConnectionWhileResentWorkIsUnderWay() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath("/locks/reaped/node");
		NodeReaper reaper = new NodeReaper(client, new ZkOps(client, new byte[0], Ids.OPEN_ACL_UNSAFE));
		proxy.refuse(true);
		eventually().until(() -> !client.getZookeeperClient().isConnected());
		CountDownLatch resending = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		AtomicReference<CompletableFuture<Void>> resent = new AtomicReference<>();
		// Stands for the resending thread being descheduled between taking the work and
		// sending it
		reaper.keepPending(List.of(() -> {
			resending.countDown();
			try {
				proceed.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, () -> resent.set(reaper.delete("/locks/reaped/node"))));
		proxy.refuse(false);
		assertThat(resending.await(20, TimeUnit.SECONDS)).isTrue();
		proxy.refuse(true);
		eventually().until(() -> !client.getZookeeperClient().getZooKeeper().getState().isConnected());
		// The registry's last lock was released meanwhile: the reaper must not stop with
		// work under way
		reaper.close();
		proceed.countDown();
		// The resent delete leaves while the client is cut off: it cannot be confirmed,
		// and is kept for the next connection
		eventually().until(() -> resent.get() != null);
		Awaitility.await()
			.during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(10))
			.until(() -> !resent.get().isDone());
		proxy.refuse(false);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/reaped")).isEmpty());
	}

}
