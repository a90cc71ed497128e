package dev.zklock.sample.kit;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import dev.zklock.core.LockLostException;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The kit with {@code @SpringBootTest}: the application's own client is pointed at the
 * kit's server, the kit's registry is the context's, and its faults reach the
 * application's {@code @DistributedLock} methods.
 */
@SpringBootTest(classes = KitApplication.class, properties = "zklock.connect-string=localhost:1")
@Import(KitApplication.Stock.class)
class TestKitSpringTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create();

	@Autowired
	ZkLockRegistry registry;

	@Autowired
	KitApplication.Stock stock;

	@Test
	@Timeout(30)
	void theApplicationsOwnClientConnectsToTheKitAheadOfItsProperties() {
		assertThat(zk.registry()).isSameAs(this.registry);
		assertThat(this.registry.getClient().getZookeeperClient().getCurrentConnectionString())
			.isEqualTo(zk.connectString());
		assertThat(this.stock.reserve("42")).isEqualTo("42");
		zk.assertThatKey("stock:42").wasAcquired(1).isNotHeld();
	}

	@Test
	@Timeout(30)
	void aFaultReachesTheApplicationsLockedMethod() {
		zk.onAcquired("stock:7", zk::expireSession);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> this.stock.reserve("7"));
		zk.assertThatKey("stock:7").wasLost().isNotHeld();
		// The application has a new session for the next test
		assertThat(this.stock.reserve("8")).isEqualTo("8");
		zk.assertNoNodesLeft();
	}

	@Test
	@Timeout(30)
	void anotherInstanceWaitsBehindTheApplication() throws Exception {
		ZkLockRegistry other = zk.newParticipant();
		zk.onAcquired("stock:9", () -> {
			Thread waiter = new Thread(() -> other.executeLocked("stock:9", Duration.ofSeconds(10), () -> {
			}));
			waiter.start();
			zk.assertThatKey("stock:9").isHeldByApplication().hasWaiters(1);
		});
		this.stock.reserve("9");
		zk.assertThatKey("stock:9").wasAcquired(1);
		zk.assertNoNodesLeft();
	}

}
