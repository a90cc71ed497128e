package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A key whose lock path is missing (never used, or its container reaped once idle) has
 * its containers made in the same flight as its node, not one round trip per missing
 * level. A {@link ZkFaultProxy} holds the container's reply back, so that "the node was
 * sent before the container was confirmed" is a fact of the test, not a race.
 */
@Timeout(60)
class MissingLockPathTests {

	/** Shorter than the client's read timeout (2/3 of its 4 s session). */
	private static final Duration HELD_BACK = Duration.ofSeconds(2);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void aKeyWithoutItsPathSendsTheContainerWithTheNode() throws Exception {
		// The root path exists: the key lacks only its own level, as one reaped once idle
		this.zk.newClient().create().withMode(CreateMode.CONTAINER).forPath("/locks");
		ZkFaultProxy proxy = this.zk.newProxy();
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(proxy.connectString()));
		proxy.delayNextReplyTo(OpCode.createContainer, HELD_BACK);
		ZkLock lock = registry.obtain("fresh");
		lock.lock();
		try {
			assertThat(this.zk.children("/locks/fresh")).hasSize(1);
		}
		finally {
			lock.unlock();
		}
		assertThat(proxy.rulesFired()).isTrue();
		// One create refused for want of the path, then container, node and list together
		assertThat(proxy.requests(OpCode.create2)).as("node creates").isEqualTo(2);
		assertThat(proxy.requests(OpCode.createContainer)).as("container creates").isEqualTo(1);
		assertThat(proxy.maxInFlight()).as("requests sent without waiting").isGreaterThanOrEqualTo(3);
	}

	@Test
	void aFirstUseMakesEveryLevelInOneFlight() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString()).usingNamespace("app");
		ZkLockRegistry registry = this.zk.newRegistry(client, ZkLockOptions.defaults().withRootPath("/deep/er"));
		// The outermost level is sent first in the last flight, and only there
		proxy.delayNextReplyTo(OpCode.createContainer, "/app", HELD_BACK);
		ZkLock lock = registry.obtain("k");
		lock.lock();
		try {
			assertThat(this.zk.children("/app/deep/er/k")).hasSize(1);
		}
		finally {
			lock.unlock();
		}
		// A create without the path; the key's own container and the node, refused for
		// want of the root; then /app, /app/deep, /app/deep/er, the key's level and the
		// node, with the list, in one flight
		assertThat(proxy.rulesFired()).isTrue();
		assertThat(proxy.requests(OpCode.create2)).as("node creates").isEqualTo(3);
		assertThat(proxy.requests(OpCode.createContainer)).as("container creates").isEqualTo(5);
		assertThat(proxy.maxInFlight()).as("requests sent without waiting").isGreaterThanOrEqualTo(6);
	}

	@Test
	void aChrootThatDoesNotExistIsTheErrorReported() throws Exception {
		String connectString = this.zk.connectString() + "/no-such-chroot";
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(connectString));
		assertRefusedAtOnce(registry.obtain("k"), "chroot", connectString);
		assertThat(this.zk.children("/")).doesNotContain("no-such-chroot");
	}

	@Test
	void aContainerRefusedIsTheErrorReported() throws Exception {
		CuratorFramework admin = this.zk.newClient();
		admin.create()
			.withMode(CreateMode.PERSISTENT)
			.withACL(ZooDefs.Ids.READ_ACL_UNSAFE)
			.forPath("/read-only", new byte[0]);
		ZkLockRegistry registry = this.zk.newRegistry(this.zk.newClient(),
				ZkLockOptions.defaults().withRootPath("/read-only"));
		assertRefusedAtOnce(registry.obtain("k"), "NoAuth", "/read-only/k");
		assertThat(this.zk.children("/read-only")).isEmpty();
	}

	/**
	 * A 30 s wait ends well before its time with {@code ERROR}: the refusal is reported,
	 * not retried until the wait runs out.
	 */
	private static void assertRefusedAtOnce(ZkLock lock, String... messageParts) {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> lock.tryLock(30, TimeUnit.SECONDS))
			.satisfies((ex) -> {
				assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.ERROR);
				assertThat(ex.getMessage()).contains(messageParts);
			});
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
	}

}
