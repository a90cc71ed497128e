package dev.zklock.core.view;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;
import dev.zklock.core.leader.LeaderGroup;

/**
 * Where the view reads and the reports live, and the view's bounds.
 *
 * @param instancesPath where instances publish their reports, apart from the lock and
 * leader root paths, {@value #DEFAULT_INSTANCES_PATH} by default
 * @param leadersRootPath the leader groups' root path, {@code null} to show no groups
 * @param maxKeys the most children of a root path the view lists: a root path with more
 * is refused, not read, since its list alone could exceed what a ZooKeeper reply may
 * carry
 * @param maxNodesPerKey the most nodes of one key the view lists; beyond, it counts them
 * @param reportInterval the least time between two writes of this instance's report
 * @param heartbeat the most time between two writes of this instance's report
 * @author zk-lock
 */
public record ViewOptions(String instancesPath, @Nullable String leadersRootPath, int maxKeys, int maxNodesPerKey,
		Duration reportInterval, Duration heartbeat) {

	/**
	 * The default path of the reports.
	 */
	public static final String DEFAULT_INSTANCES_PATH = "/zklock-instances";

	/**
	 * Check the options.
	 * @throws IllegalArgumentException naming the value and what is wrong with it
	 */
	public ViewOptions {
		LockPaths.validatePath("Instances path", instancesPath);
		if (leadersRootPath != null) {
			LockPaths.validatePath("Leaders root path", leadersRootPath);
		}
		if (maxKeys < 1) {
			throw new IllegalArgumentException("Most keys listed must be positive, but was " + maxKeys);
		}
		if (maxNodesPerKey < 1) {
			throw new IllegalArgumentException("Most nodes listed per key must be positive, but was " + maxNodesPerKey);
		}
		if (reportInterval.isNegative() || reportInterval.isZero()) {
			throw new IllegalArgumentException("Report interval must be positive, but was " + reportInterval);
		}
		if (heartbeat.compareTo(reportInterval) < 0) {
			throw new IllegalArgumentException(
					"Heartbeat must be at least the report interval (" + reportInterval + "), but was " + heartbeat);
		}
	}

	/**
	 * The defaults: reports under {@value #DEFAULT_INSTANCES_PATH}, groups under
	 * {@code /leaders}, at most 10 000 keys and 10 000 nodes per key, reports rewritten
	 * at most every 250 ms and at least every 2 s.
	 * @return the options
	 */
	public static ViewOptions defaults() {
		return new ViewOptions(DEFAULT_INSTANCES_PATH, LeaderGroup.DEFAULT_ROOT_PATH, 10_000, 10_000,
				Duration.ofMillis(250), Duration.ofSeconds(2));
	}

	/**
	 * A copy with another leaders root path.
	 * @param leadersRootPath the path, {@code null} for no groups
	 * @return the copy
	 */
	public ViewOptions withLeadersRootPath(@Nullable String leadersRootPath) {
		return new ViewOptions(this.instancesPath, leadersRootPath, this.maxKeys, this.maxNodesPerKey,
				this.reportInterval, this.heartbeat);
	}

	/**
	 * A copy with another instances path.
	 * @param instancesPath the path
	 * @return the copy
	 */
	public ViewOptions withInstancesPath(String instancesPath) {
		return new ViewOptions(instancesPath, this.leadersRootPath, this.maxKeys, this.maxNodesPerKey,
				this.reportInterval, this.heartbeat);
	}

}
