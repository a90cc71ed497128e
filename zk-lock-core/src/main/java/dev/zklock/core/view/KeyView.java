package dev.zklock.core.view;

import java.util.List;

import dev.zklock.core.LockKind;

/**
 * One key as the view shows it.
 *
 * @param key the key
 * @param path its ZooKeeper path
 * @param kind the recipe its nodes belong to
 * @param holders the nodes that hold it, in queue order: one for an exclusive lock or a
 * writer, every reader ahead of the first writer, every lease of a semaphore
 * @param waiters the nodes that wait for it, in queue order
 * @param lost holds that an instance still reports but ZooKeeper no longer shows: their
 * lease is lost (or, for a moment, a release not yet reported)
 * @param unlisted how many nodes the key has beyond those listed, when it has more than
 * {@link ViewOptions#maxNodesPerKey()}
 * @author zk-lock
 */
public record KeyView(String key, String path, LockKind kind, List<NodeView> holders, List<NodeView> waiters,
		List<NodeView> lost, int unlisted) {

	/**
	 * Create a new instance.
	 */
	public KeyView {
		holders = List.copyOf(holders);
		waiters = List.copyOf(waiters);
		lost = List.copyOf(lost);
	}

}
