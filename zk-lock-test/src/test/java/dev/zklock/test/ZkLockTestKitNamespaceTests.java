package dev.zklock.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kit's faults aim at the application's paths under its client's namespace.
 */
class ZkLockTestKitNamespaceTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(2));

	@Test
	@Timeout(20)
	void aLostCreateReplyReachesAnApplicationWithANamespace() throws Exception {
		CuratorFramework client = namespacedClient();
		try (ZkLockRegistry registry = new ZkLockRegistry(client, ZkLockOptions.defaults())) {
			assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			zk.useApplication(registry);
			long before = zk.events().stateChanges();
			zk.dropNextReply(ZooDefs.OpCode.create2);
			ZkLock lock = registry.obtain("stock:42");
			lock.acquire(Duration.ofSeconds(8));
			lock.unlock();
			assertThat(zk.events().anySince(before, ConnectionState.SUSPENDED))
				.as("the connection was dropped after the lost reply")
				.isTrue();
		}
		finally {
			client.close();
		}
	}

	/**
	 * deleteHeldNode deletes the holder's node under the application's namespace, where
	 * it found it.
	 */
	@Test
	@Timeout(20)
	void aHeldNodeOfAnApplicationWithANamespaceCanBeDeleted() throws Exception {
		CuratorFramework client = namespacedClient();
		try (ZkLockRegistry registry = new ZkLockRegistry(client, ZkLockOptions.defaults())) {
			assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			zk.useApplication(registry);
			ZkLock lock = registry.obtain("cleanup");
			lock.acquire(Duration.ofSeconds(5));
			zk.deleteHeldNode("cleanup");
			zk.assertThatKey("cleanup").isNotHeld();
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				// heard, if the hold watched its node
			}
		}
		finally {
			client.close();
		}
	}

	/** An application's client under the namespace {@code shop}, through the kit. */
	private static CuratorFramework namespacedClient() {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(zk.connectString())
			.namespace("shop")
			.sessionTimeoutMs(2000)
			.connectionTimeoutMs(2000)
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		return client;
	}

}
