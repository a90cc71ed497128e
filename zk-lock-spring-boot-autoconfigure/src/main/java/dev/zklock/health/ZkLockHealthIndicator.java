package dev.zklock.health;

import java.time.Duration;
import java.time.Instant;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooKeeper;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the ZooKeeper session behind the locks, read from the connection state
 * Curator last reported, so a health check never waits on ZooKeeper:
 * <ul>
 * <li>{@code UP}: connected or reconnected;</li>
 * <li>{@code OUT_OF_SERVICE}: suspended, so held locks are uncertain until the session is
 * known to survive or expire;</li>
 * <li>{@code DOWN}: lost, never connected, or the client is not started.</li>
 * </ul>
 * Details: connect string, state, session id in hex, negotiated session timeout, time
 * since the last state change, and the number of locks this JVM holds. Never credentials.
 *
 * @author zk-lock
 */
public class ZkLockHealthIndicator extends AbstractHealthIndicator {

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the registry whose client and locks are reported
	 */
	public ZkLockHealthIndicator(ZkLockRegistry registry) {
		super("ZooKeeper health check failed");
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		CuratorFramework client = this.registry.getClient();
		ConnectionStatus status = this.registry.connectionStatus();
		ConnectionState state = status.state();
		boolean connected = client.getZookeeperClient().isConnected();
		if (client.getState() != CuratorFrameworkState.STARTED) {
			builder.down().withDetail("state", "client " + client.getState());
		}
		else if (state == null) {
			builder.status(connected ? Status.UP : Status.DOWN)
				.withDetail("state", connected ? ConnectionState.CONNECTED : "NEVER_CONNECTED");
		}
		else {
			switch (state) {
				case CONNECTED, RECONNECTED -> builder.up();
				case SUSPENDED -> builder.outOfService();
				default -> builder.down();
			}
			builder.withDetail("state", state);
		}
		builder.withDetail("connectString", client.getZookeeperClient().getCurrentConnectionString());
		if (connected) {
			ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
			builder.withDetail("sessionId", "0x" + Long.toHexString(zooKeeper.getSessionId()))
				.withDetail("sessionTimeout", Duration.ofMillis(zooKeeper.getSessionTimeout()).toString());
		}
		builder.withDetail("sinceLastChange", Duration.between(status.since(), Instant.now()).toString())
			.withDetail("heldLocks", this.registry.heldCount());
	}

}
