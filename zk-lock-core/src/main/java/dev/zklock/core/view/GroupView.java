package dev.zklock.core.view;

import java.util.List;

/**
 * One leadership group as the view shows it.
 *
 * @param group the group's name
 * @param path its ZooKeeper path
 * @param members its nodes in queue order, the first leading
 * @author zk-lock
 */
public record GroupView(String group, String path, List<NodeView> members) {

	/**
	 * Create a new instance.
	 */
	public GroupView {
		members = List.copyOf(members);
	}

}
