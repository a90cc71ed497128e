package dev.zklock.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.ZkLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A paused holder hears nothing while it is paused, not even the server closing its
 * session's connection: with a 10 s session (a read timeout of 6.7 s), any
 * {@code SUSPENDED} within the pause would come from the proxy passing that close on.
 */
class ZkLockTestKitPauseTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(10));

	@Test
	@Timeout(30)
	void aPausedHolderHearsNothingWhilePaused() {
		ZkLock lock = zk.registry().obtain("paused");
		lock.acquire(Duration.ofSeconds(5));
		long before = zk.events().stateChanges();
		AtomicBoolean suspendedWhilePaused = new AtomicBoolean();
		AtomicLong pausedAt = new AtomicLong();
		long start = System.nanoTime();
		zk.pauseHolder("paused", () -> {
			pausedAt.set(System.nanoTime() - start);
			Thread.sleep(1000);
			suspendedWhilePaused.set(zk.events().anySince(before, ConnectionState.SUSPENDED, ConnectionState.LOST));
		});
		System.out.println("whilePaused began " + Duration.ofNanos(pausedAt.get()).toMillis() + " ms after the pause");
		try {
			lock.unlock();
		}
		catch (RuntimeException ex) {
			// lost, as expected after the pause
		}
		assertThat(suspendedWhilePaused).as("the application's client was SUSPENDED during the pause").isFalse();
	}

}
