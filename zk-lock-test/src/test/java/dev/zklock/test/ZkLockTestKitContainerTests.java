package dev.zklock.test;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kit's faults with its server in a Docker container of the official image, behind
 * the same proxy. Skipped (aborted by the kit) where there is no Docker engine, as on CI.
 */
class ZkLockTestKitContainerTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().inContainer("zookeeper:3.9");

	@Test
	@Timeout(120)
	void aSessionExpiredInsideTheLockedWindowIsLost() {
		ZkLockRegistry application = zk.registry();
		zk.onAcquired("order:1", zk::expireSession);
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> application.executeLocked("order:1", Duration.ofSeconds(5), () -> {
			}));
		zk.assertThatKey("order:1").wasLost().isNotHeld();
	}

	@Test
	@Timeout(120)
	void aStoppedContainerComesBackWithItsSessions() {
		ZkLockRegistry application = zk.registry();
		long session = ZkLockTestKit.sessionOf(application);
		zk.stopServer();
		zk.restartServer();
		assertThat(ZkLockTestKit.sessionOf(application)).isEqualTo(session);
		application.executeLocked("nightly", Duration.ofSeconds(5), () -> {
		});
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(120)
	void aPausedHolderLosesTheKeyToAnotherInstance() {
		ZkLockRegistry other = zk.newParticipant();
		zk.onAcquired("billing", () -> zk.pauseHolder("billing", () -> other.executeLocked("billing",
				Duration.ofSeconds(5), () -> zk.assertThatKey("billing").isHeldBy(other))));
		ZkLock lock = zk.registry().obtain("billing");
		lock.acquire(Duration.ofSeconds(5));
		zk.assertThatKey("billing").wasLost();
		assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
	}

}
