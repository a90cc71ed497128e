package dev.zklock.core.view;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One read of the whole cluster's locks: a page of the keys under the lock root path with
 * their holders and queues, every reporting instance, and every leadership group.
 *
 * @param rootPath the lock root path
 * @param readAt when the read began, by this JVM's clock
 * @param readTime how long the read took
 * @param keysUnderRoot how many children the lock root path has: every key, listed or not
 * @param keys the keys of this page that have a participant, in key order
 * @param nextAfter the key to ask for the next page after, {@code null} if this page is
 * the last
 * @param instances the instances that report, this one first
 * @param groups the leadership groups, in name order, if a leaders root path was given
 * @author zk-lock
 */
public record ClusterView(String rootPath, Instant readAt, Duration readTime, int keysUnderRoot, List<KeyView> keys,
		@Nullable String nextAfter, List<InstanceView> instances, List<GroupView> groups) {

	/**
	 * Create a new instance.
	 */
	public ClusterView {
		keys = List.copyOf(keys);
		instances = List.copyOf(instances);
		groups = List.copyOf(groups);
	}

}
