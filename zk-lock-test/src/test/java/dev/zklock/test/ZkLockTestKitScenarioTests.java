package dev.zklock.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every fault of the kit on a plain test class with a 2 s session, each scenario bounded
 * by 10 s, as the kit promises its users. The suite repeated under load is the kit's
 * flakiness check (see the test kit's section in {@code docs/design.md}).
 */
class ZkLockTestKitScenarioTests {

	/** A scenario's bound: the kit's promise with a 2 s session. */
	private static final long SCENARIO_SECONDS = 10;

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(2));

	private long started;

	@BeforeEach
	void start() {
		this.started = System.nanoTime();
	}

	@AfterEach
	void withinTheBound(TestInfo test) {
		Duration took = Duration.ofNanos(System.nanoTime() - this.started);
		System.out.println("scenario " + test.getDisplayName() + " took " + took.toMillis() + " ms");
		assertThat(took).isLessThan(Duration.ofSeconds(SCENARIO_SECONDS));
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aSessionExpiredInsideTheLockedWindowIsLostBeforeTheWorkGoesOn() {
		ZkLockRegistry application = zk.registry();
		Hook hook = zk.onAcquired("order:1", zk::expireSession);
		AtomicReference<LeaseState> seenByTheWork = new AtomicReference<>();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> application.executeLocked("order:1",
				Duration.ofSeconds(5), () -> seenByTheWork.set(application.obtain("order:1").leaseState())));
		assertThat(hook.firedOn()).isEqualTo(Thread.currentThread().getName());
		assertThat(seenByTheWork).hasValue(LeaseState.LOST);
		zk.assertThatKey("order:1").wasLost().isNotHeld().wasAcquired(1);
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aCutLongerThanTheSessionLosesTheLockToAnotherInstance() {
		ZkLock lock = zk.registry().obtain("report");
		lock.acquire(Duration.ofSeconds(5));
		ZkLockRegistry other = zk.newParticipant();
		assertThat(zk.cutConnection(Duration.ofSeconds(3))).isEqualTo(ConnectionState.LOST);
		zk.assertThatKey("report").wasLost();
		assertThat(lock.leaseState()).isEqualTo(LeaseState.LOST);
		other.obtain("report").acquire(Duration.ofSeconds(5));
		zk.assertThatKey("report").isHeldBy(other);
		assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void anInstancePausedInsideItsWindowResumesWithAStaleTokenAfterAnotherWrote() throws Exception {
		ZkLockRegistry application = zk.registry();
		ZkLockRegistry other = zk.newParticipant();
		AtomicReference<Long> newerToken = new AtomicReference<>();
		zk.onAcquired("billing", () -> zk.pauseHolder("billing", () -> other.executeLocked("billing",
				Duration.ofSeconds(5), () -> newerToken.set(other.obtain("billing").fencingToken()))));
		ZkLock lock = application.obtain("billing");
		lock.acquire(Duration.ofSeconds(5));
		long staleToken = lock.fencingToken();
		assertThat(staleToken).isLessThan(newerToken.get());
		zk.assertThatKey("billing").wasLost();
		assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aHeldNodeDeletedByAnotherClientGivesTheKeyToTheNextInLine() throws Exception {
		ZkLock lock = zk.registry().obtain("cleanup");
		lock.acquire(Duration.ofSeconds(5));
		ZkLockRegistry other = zk.newParticipant();
		Thread waiter = new Thread(() -> other.executeLocked("cleanup", Duration.ofSeconds(8), () -> {
		}));
		waiter.start();
		zk.assertThatKey("cleanup").hasWaiters(1);
		zk.deleteHeldNode("cleanup");
		waiter.join(Duration.ofSeconds(8).toMillis());
		assertThat(waiter.isAlive()).isFalse();
		zk.assertThatKey("cleanup").isNotHeld();
		try {
			lock.unlock();
		}
		catch (LockLostException ex) {
			// heard, if the hold watched its node
		}
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void whileTheServerIsStoppedNoLockIsGivenAndAfterItsRestartTheApplicationLocksAgain() {
		// Whether the 2 s session survives the outage is ZooKeeper's timing (see
		// ZkLockTestKitReconnectTests for a session that does)
		ZkLockRegistry application = zk.registry();
		zk.stopServer();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> application.obtain("nightly").acquire(Duration.ofMillis(500)));
		zk.restartServer();
		application.executeLocked("nightly", Duration.ofSeconds(5), () -> {
		});
		zk.assertThatKey("nightly").wasAcquired(1).wasNotLost();
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aLostReplyToTheCreateOfALockNodeLeavesOneHolderAndNoNodeBehind() {
		ZkLockRegistry application = zk.registry();
		zk.dropNextReply(ZooDefs.OpCode.create2);
		ZkLock lock = application.obtain("stock:42");
		lock.acquire(Duration.ofSeconds(8));
		try {
			zk.assertThatKey("stock:42").isHeldByApplication().hasWaiters(0);
		}
		finally {
			lock.unlock();
		}
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void delayedRepliesSlowTheLockDownButGiveIt() {
		ZkLockRegistry application = zk.registry();
		zk.delayReplies(Duration.ofMillis(700));
		long start = System.nanoTime();
		application.executeLocked("slow", Duration.ofSeconds(5), () -> {
		});
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
		zk.assertThatKey("slow").wasAcquired(1).isNotHeld();
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aFaultAskedForAKeyNobodyHoldsSaysSo() {
		zk.registry();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> zk.deleteHeldNode("nobody"))
			.withMessageContaining("'nobody'")
			.withMessageContaining("nobody holds it");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> zk.pauseHolder("nobody", () -> {
		})).withMessageContaining("the application does not hold it");
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aHookThatNeverFiresSaysWhichKeyItWaitedFor() {
		// The kit fails a test whose hook never fired with this hook's failure
		Hook hook = new Hook("never", () -> {
		}, Duration.ofMillis(200));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(hook::awaitFired)
			.withMessageContaining("The hook on 'never' never fired")
			.withMessageContaining("did not acquire 'never'");
		assertThat(hook.failure()).hasMessageContaining("The hook on 'never' never fired");
		Hook failing = zk.onAcquired("failing", () -> {
			throw new IllegalStateException("boom");
		});
		zk.registry().executeLocked("failing", Duration.ofSeconds(5), () -> {
		});
		assertThatExceptionOfType(AssertionError.class).isThrownBy(failing::awaitFired)
			.withMessageContaining("The hook on 'failing' failed: boom");
		// Failing this test is the kit's job after it: the failure is forgotten here
		zk.events().clear();
	}

	@Test
	@Timeout(SCENARIO_SECONDS)
	void aKitUsedOutsideATestSaysHowToRegisterIt() {
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ZkLockTestKit.create().registry())
			.withMessageContaining("@RegisterExtension static ZkLockTestKit");
	}

}
