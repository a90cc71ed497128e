package dev.zklock.test;

import java.time.Duration;

import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cut the session survives. Not with a 2 s session: ZooKeeper's client waits up to 1 s
 * before it reconnects and its last ping may be 0.7 s old, so a 2 s session can expire on
 * any cut (see {@link ZkLockTestKit#cutConnection(Duration)}). With 5 s, a 500 ms cut
 * comes back with about 1.8 s to spare.
 */
class ZkLockTestKitReconnectTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(5));

	@Test
	@Timeout(10)
	void aShortCutSuspendsTheConnectionAndTheLockSurvivesIt() {
		ZkLock lock = zk.registry().obtain("report");
		lock.acquire(Duration.ofSeconds(5));
		try {
			assertThat(zk.cutConnection(Duration.ofMillis(500))).isEqualTo(ConnectionState.RECONNECTED);
			assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
			zk.assertThatKey("report").isHeldByApplication().wasNotLost();
		}
		finally {
			lock.unlock();
		}
		zk.assertThatKey("report").isNotHeld();
	}

	@Test
	@Timeout(10)
	void aServerStartedAgainWithinTheSessionKeepsTheSessionAndItsLock() {
		ZkLockRegistry application = zk.registry();
		long session = ZkLockTestKit.sessionOf(application);
		ZkLock lock = application.obtain("nightly");
		lock.acquire(Duration.ofSeconds(5));
		try {
			zk.stopServer();
			assertThat(lock.leaseState()).isEqualTo(LeaseState.UNCERTAIN);
			zk.restartServer();
			assertThat(ZkLockTestKit.sessionOf(application)).isEqualTo(session);
			zk.assertThatKey("nightly").isHeldByApplication().wasNotLost();
		}
		finally {
			lock.unlock();
		}
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(10)
	void aTestLooksAtTheApplicationWhileItIsDisconnectedThenHealsIt() {
		ZkLock lock = zk.registry().obtain("report");
		lock.acquire(Duration.ofSeconds(5));
		try {
			zk.disconnect();
			assertThat(lock.leaseState()).isEqualTo(LeaseState.UNCERTAIN);
			zk.heal();
			zk.assertThatKey("report").isHeldByApplication();
			zk.await("the lease to be HELD again", () -> lock.leaseState() == LeaseState.HELD);
		}
		finally {
			lock.unlock();
		}
		zk.assertThatKey("report").wasNotLost().isNotHeld();
	}

}
