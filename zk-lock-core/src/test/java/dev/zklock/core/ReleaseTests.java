package dev.zklock.core;

import java.time.Duration;

import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release sends the delete of the lock node and returns without waiting for its reply,
 * unless the options ask to wait; {@link ZkLockRegistry#awaitReleased(Duration)} waits
 * where the caller needs the node gone. A {@link ZkFaultProxy} holds the delete's reply
 * back, so that "not confirmed yet" is a fact of the test, not a race.
 */
@Timeout(60)
class ReleaseTests {

	/** Shorter than the client's read timeout (2/3 of its 4 s session). */
	private static final Duration HELD_BACK = Duration.ofSeconds(2);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void unlockReturnsOnceTheDeleteIsSent() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLock lock = registry.obtain("fast-release");
		lock.lock();
		proxy.delayNextReplyTo(OpCode.delete, HELD_BACK);
		lock.unlock();
		// Had unlock() waited for the reply, the delete would be confirmed by now
		assertThat(registry.awaitReleased(Duration.ZERO)).isFalse();
		assertThat(registry.awaitReleased(Duration.ofSeconds(20))).isTrue();
		assertThat(proxy.rulesFired()).isTrue();
		assertThat(this.zk.children("/locks/fast-release")).isEmpty();
	}

	@Test
	void theNextLockOfTheSameJvmIsAppliedAfterTheDelete() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLock lock = registry.obtain("relock");
		lock.lock();
		String first = this.zk.children("/locks/relock").get(0);
		proxy.delayNextReplyTo(OpCode.delete, HELD_BACK);
		lock.unlock();
		lock.lock();
		try {
			// The session's create was applied after its delete: the new node is alone,
			// first in the queue, and not queued behind the old one
			assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
			assertThat(this.zk.children("/locks/relock")).singleElement().isNotEqualTo(first);
		}
		finally {
			lock.unlock();
		}
		assertThat(registry.awaitReleased(Duration.ofSeconds(20))).isTrue();
		assertThat(this.zk.children("/locks/relock")).isEmpty();
	}

	@Test
	void aReleaseTimeoutMakesUnlockWaitForTheConfirmation() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = new ZkLockRegistry(this.zk.newClient(proxy.connectString()),
				ZkLockOptions.defaults().withReleaseTimeout(Duration.ofSeconds(20)));
		try {
			ZkLock lock = registry.obtain("confirmed-release");
			lock.lock();
			proxy.delayNextReplyTo(OpCode.delete, HELD_BACK);
			lock.unlock();
			assertThat(registry.awaitReleased(Duration.ZERO)).isTrue();
			assertThat(proxy.rulesFired()).isTrue();
			assertThat(this.zk.children("/locks/confirmed-release")).isEmpty();
		}
		finally {
			registry.close();
		}
	}

	@Test
	void aDeleteLostWithTheConnectionIsConfirmedAfterTheReconnect() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		ZkLock lock = registry.obtain("lost-delete");
		lock.lock();
		proxy.loseNextRequest(OpCode.delete);
		lock.unlock();
		assertThat(registry.awaitReleased(Duration.ofSeconds(20))).isTrue();
		assertThat(proxy.rulesFired()).isTrue();
		assertThat(this.zk.children("/locks/lost-delete")).isEmpty();
	}

}
