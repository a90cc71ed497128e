package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link ZkLockRegistry#obtainAll} (several keys as one lock) and
 * {@link ZkLock#toLease()} (a thread's hold handed to work that outlives it), against a
 * real ZooKeeper.
 */
@Timeout(60)
class MultiKeyAndLeaseHandOverTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void severalKeysAreTakenInOrderOnceEachAndReleasedTogether() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock lock = registry.obtainAll(List.of("b", "a", "b"));
		assertThat(lock.key()).isEqualTo("[a, b]");
		assertThat(lock.path()).isEqualTo("[/locks/a, /locks/b]");
		lock.lock();
		try {
			assertThat(registry.obtain("a").isHeldByCurrentThread()).isTrue();
			assertThat(registry.obtain("b").isHeldByCurrentThread()).isTrue();
			assertThat(lock.isHeldByCurrentThread()).isTrue();
			assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
			assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::fencingToken)
				.withMessageContaining("one fencing token per key");
		}
		finally {
			lock.unlock();
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/a")).isEmpty());
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/b")).isEmpty());
		assertThat(registry.size()).isZero();
	}

	@Test
	void oneKeyIsTheSameAsObtainAndNoKeyIsRefused() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		assertThat(registry.obtainAll(List.of("solo", "solo")).key()).isEqualTo("solo");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtainAll(List.of()))
			.withMessageContaining("At least one lock key");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtainAll(List.of("ok", "a/b")))
			.withMessageContaining("'a/b'");
		assertThat(this.zk.children("/")).containsOnly("zookeeper");
	}

	@Test
	void whenOneKeyIsBusyNoneIsKept() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLockRegistry other = this.zk.newRegistry();
		ZkLock busy = other.obtain("m2");
		busy.lock();
		try {
			ZkLock both = registry.obtainAll(List.of("m1", "m2"));
			long start = System.nanoTime();
			assertThat(both.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
			// One wait for all keys, not one per key
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			assertThat(registry.obtain("m1").isHeldByCurrentThread()).isFalse();
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/m1")).isEmpty());
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> both.acquire(Duration.ofMillis(200)))
				.withMessageContaining("'m2'");
			assertThat(both.tryLock()).isFalse();
			assertThat(registry.size()).isZero();
		}
		finally {
			busy.unlock();
		}
	}

	/**
	 * The second key's create is answered late, so that the wait is nearly spent when the
	 * third key's create is sent, and its reply comes after the wait: nobody holds any of
	 * the keys, and the call must not say they were held by another participant for the
	 * whole wait, nor count only the third key's part of the wait.
	 */
	@Test
	void aWaitThatRunsOutPartWaySaysHowFarItGotAndHowLongItWaited() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()),
				ZkLockOptions.defaults());
		proxy.delayNextReplyUnder(OpCode.create2, "/locks/part-b/", Duration.ofMillis(800));
		proxy.delayNextReplyUnder(OpCode.create2, "/locks/part-c/", Duration.ofSeconds(3));
		ZkLock lock = registry.obtainAll(List.of("part-a", "part-b", "part-c"));
		LockAcquisitionException failure = assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> lock.acquire(Duration.ofMillis(1000)))
			.actual();
		assertThat(proxy.rulesFired()).isTrue();
		assertThat(failure.getReason()).isEqualTo(Reason.NO_REPLY);
		assertThat(failure.getKey()).isEqualTo("part-c");
		assertThat(failure.getPath()).isEqualTo("/locks/part-c");
		assertThat(failure.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(1000));
		assertThat(failure.getMessage())
			.startsWith("Could not acquire lock 'part-c' (ZooKeeper path /locks/part-c) after waiting "
					+ failure.getWaited().toMillis() + " ms: ZooKeeper did not reply within the wait (the wait of "
					+ "1000 ms ran out while taking the keys one by one: 2 of the 3 keys were taken, one by one, and "
					+ "given back; nobody was seen holding 'part-c', the next key, whose reply was still awaited")
			.endsWith("the wait is too short for 3 keys)")
			.doesNotContain("held by another participant");
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		for (String key : List.of("part-a", "part-b", "part-c")) {
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/" + key)).isEmpty());
		}
	}

	@Test
	void aThreadsHoldCanBeHandedToALeaseThatAnotherThreadReleases() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock lock = registry.obtain("handed");
		lock.lock();
		long token = lock.fencingToken();
		ZkLease lease = lock.toLease();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lease.fencingToken()).isEqualTo(token);
		assertThat(lease.state()).isEqualTo(LeaseState.HELD);
		// Still held, by the lease: another thread of this JVM cannot have it
		CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> registry.obtain("handed").tryLock(),
				TestThreads.EXECUTOR);
		assertThat(other.get(10, TimeUnit.SECONDS)).isFalse();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/handed")).hasSize(1));
		CompletableFuture.runAsync(lease::release, TestThreads.EXECUTOR).get(10, TimeUnit.SECONDS);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/handed")).isEmpty());
		assertThat(registry.size()).isZero();
	}

	@Test
	void onlyAnOutermostHoldCanBeHandedOver() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock lock = registry.obtain("nested");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::toLease);
		lock.lock();
		lock.lock();
		try {
			assertThatIllegalStateException().isThrownBy(lock::toLease).withMessageContaining("held 2 times");
			ZkLock both = registry.obtainAll(List.of("nested", "other"));
			both.lock();
			try {
				assertThatIllegalStateException().isThrownBy(both::toLease);
				// Nothing was handed over: the thread still holds both
				assertThat(registry.obtain("other").isHeldByCurrentThread()).isTrue();
			}
			finally {
				both.unlock();
			}
		}
		finally {
			lock.unlock();
			lock.unlock();
		}
		assertThat(registry.size()).isZero();
	}

	@Test
	void severalKeysCanBeHandedOverTogether() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock both = registry.obtainAll(List.of("h1", "h2"));
		both.lock();
		ZkLease lease = both.toLease();
		assertThat(lease.key()).isEqualTo("[h1, h2]");
		assertThat(lease.state()).isEqualTo(LeaseState.HELD);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/h1")).hasSize(1));
		CompletableFuture.runAsync(lease::release, TestThreads.EXECUTOR).get(10, TimeUnit.SECONDS);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/h1")).isEmpty());
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/h2")).isEmpty());
	}

}
