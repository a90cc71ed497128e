package dev.zklock.health;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

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
 * With a {@link ZkLeadership}, also {@code leadership}: each group of this instance, by
 * name, and its part in it: {@code LEADER}, {@code CANDIDATE} (in the queue), or
 * {@code NOT_JOINED} (before the application starts, or after it stops). Leadership never
 * changes the status: an instance that does not lead is as healthy as one that does.
 *
 * @author zk-lock
 */
public class ZkLockHealthIndicator extends AbstractHealthIndicator {

	private final ZkLockRegistry registry;

	private final @Nullable ZkLeadership leadership;

	/**
	 * Create a new instance.
	 * @param registry the registry whose client and locks are reported
	 */
	public ZkLockHealthIndicator(ZkLockRegistry registry) {
		this(registry, null);
	}

	/**
	 * Create a new instance that also reports this instance's leader groups.
	 * @param registry the registry whose client and locks are reported
	 * @param leadership the leadership whose groups are reported, if any
	 */
	public ZkLockHealthIndicator(ZkLockRegistry registry, @Nullable ZkLeadership leadership) {
		super("ZooKeeper health check failed");
		this.registry = registry;
		this.leadership = leadership;
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
		if (this.leadership != null) {
			builder.withDetail("leadership", leadership(this.leadership));
		}
	}

	/**
	 * Each group's part, from what this instance knows: no ZooKeeper read.
	 */
	private static Map<String, String> leadership(ZkLeadership leadership) {
		Map<String, String> groups = new LinkedHashMap<>();
		for (String group : leadership.getGroups()) {
			String part;
			if (leadership.isLeader(group)) {
				part = "LEADER";
			}
			else {
				part = (leadership.candidate(group) != null) ? "CANDIDATE" : "NOT_JOINED";
			}
			groups.put(group, part);
		}
		return groups;
	}

}
