package dev.zklock.health;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.curator.framework.state.ConnectionState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.health.ZkLockHealthContributorAutoConfiguration;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health transitions of {@link ZkLockHealthIndicator} on a real ZooKeeper that is stopped
 * and restarted, by {@link ZkLockTestKit} (the application's 4 s session of before).
 */
@Timeout(120)
class ZkLockHealthIndicatorTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(4));

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					ZkLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + zk.connectString(), "zklock.session-timeout=4s",
					"zklock.connection-timeout=2s", "zklock.initial-connect-wait=500ms");
	}

	@Test
	void upWithDetailsThenOutOfServiceThenDownThenUpAgain() {
		runner().run((context) -> {
			ZkLockHealthIndicator indicator = context.getBean(ZkLockHealthIndicator.class);
			ZkLock lock = zk.useApplication(context.getBean(ZkLockRegistry.class)).obtain("health");
			lock.lock();
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails())
				.containsEntry("state", org.apache.curator.framework.state.ConnectionState.CONNECTED)
				.containsEntry("connectString", zk.connectString())
				.containsEntry("sessionTimeout", "PT4S")
				.containsEntry("heldLocks", 1)
				.containsKey("sinceLastChange");
			assertThat((String) up.getDetails().get("sessionId")).matches("0x[0-9a-f]+");
			zk.stopServer();
			awaitStatus(() -> indicator.health(), Status.OUT_OF_SERVICE, Duration.ofSeconds(30));
			// Curator declares the session lost once it has been suspended for the
			// session timeout
			awaitStatus(() -> indicator.health(), Status.DOWN, Duration.ofSeconds(30));
			assertThat(indicator.health().getDetails()).containsEntry("state",
					org.apache.curator.framework.state.ConnectionState.LOST);
			zk.restartServer();
			awaitStatus(() -> indicator.health(), Status.UP, Duration.ofSeconds(30));
			try {
				lock.unlock();
			}
			catch (dev.zklock.core.LockLostException ex) {
				// expected: the session expired while the lock was held
			}
			assertThat(indicator.health().getDetails()).containsEntry("heldLocks", 0);
		});
	}

	@Test
	void downWhenNeverConnected() throws Exception {
		zk.stopServer();
		runner().run((context) -> {
			Health health = context.getBean(ZkLockHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("state", "NEVER_CONNECTED").doesNotContainKey("sessionId");
		});
	}

	/**
	 * Curator reports a never-connected client LOST once the session timeout has passed;
	 * no session was lost, and health keeps saying it never connected.
	 */
	@Test
	void neverConnectedStaysNeverConnectedWhenCuratorReportsItLost() throws Exception {
		zk.stopServer();
		runner().run((context) -> {
			CountDownLatch lost = new CountDownLatch(1);
			context.getBean(ZkLockRegistry.class).addListener(new ZkLockListener() {
				@Override
				public void connectionStateChanged(ConnectionState state) {
					if (state == ConnectionState.LOST) {
						lost.countDown();
					}
				}
			});
			assertThat(lost.await(60, TimeUnit.SECONDS)).as("Curator's LOST").isTrue();
			Health health = context.getBean(ZkLockHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("state", "NEVER_CONNECTED").doesNotContainKey("sessionId");
		});
	}

	@Test
	void healthIndicatorCanBeDisabledAndNeverShowsCredentials() {
		runner().withPropertyValues("management.health.zklock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLockHealthIndicator.class));
		runner().withPropertyValues("zklock.auth.username=shop", "zklock.auth.password=s3cret-pw").run((context) -> {
			Health health = context.getBean(ZkLockHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.toString()).doesNotContain("s3cret-pw");
		});
	}

	private static void awaitStatus(Supplier<Health> health, Status status, Duration timeout) {
		await().atMost(timeout).untilAsserted(() -> assertThat(health.get().getStatus()).isEqualTo(status));
	}

}
