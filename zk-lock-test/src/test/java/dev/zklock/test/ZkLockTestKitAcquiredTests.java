package dev.zklock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the engine tells the kit's hooks, at its edges: a reentrant read is no new hold,
 * and the keys of a lock on several keys are told only once all are held.
 */
class ZkLockTestKitAcquiredTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(2));

	/**
	 * ZkLockListener.acquired promises "Not called when a thread takes a lock it already
	 * holds again", and KeyAssert.wasAcquired "reentry not counted"; but a read side's
	 * reenter() always answers false (a read joins a count in acquireRead), so a
	 * reentrant read goes through acquireAndTell and is told again.
	 */
	@Test
	@Timeout(10)
	void aReentrantReadIsNotToldAsANewAcquisition() {
		ZkLock read = zk.registry().obtainReadWrite("report").readLock();
		read.lock();
		try {
			read.lock();
			read.unlock();
		}
		finally {
			read.unlock();
		}
		zk.assertThatKey("report").wasAcquired(1);
	}

	/**
	 * A hook on the first key of a lock on several keys fires "inside the locked window,
	 * before the locked method's body runs" although the call then fails on the next key
	 * and nothing runs under the lock.
	 */
	@Test
	@Timeout(10)
	void aHookOnAKeyOfAFailedMultiKeyCallDoesNotFire() {
		ZkLockRegistry other = zk.newParticipant();
		ZkLock b = other.obtain("b");
		b.acquire(Duration.ofSeconds(5));
		try {
			Hook hook = zk.onAcquired("a", () -> {
			});
			assertThat(zk.registry().obtainAll(List.of("a", "b")).tryLock()).isFalse();
			boolean fired = hook.hasFired();
			// let the test end without the kit's "never fired" failure either way
			zk.events().clear();
			assertThat(fired).as("hook on 'a' fired although the call on [a, b] failed").isFalse();
		}
		finally {
			b.unlock();
		}
	}

}
