package org.apache.zookeeper;

import java.util.Map;
import java.util.Set;

/**
 * Counts the watcher objects a ZooKeeper client keeps, which ZooKeeper only shows inside
 * its own package: a test that a waiting client does not pile them up needs the count.
 */
public final class ClientWatchers {

	private ClientWatchers() {
	}

	/**
	 * Watcher objects registered through {@code getData}, over all paths.
	 * @param zooKeeper the client
	 * @return the count
	 */
	public static int data(ZooKeeper zooKeeper) {
		return count(zooKeeper.getWatchManager().getDataWatches());
	}

	/**
	 * Watcher objects registered through {@code getChildren}, over all paths.
	 * @param zooKeeper the client
	 * @return the count
	 */
	public static int children(ZooKeeper zooKeeper) {
		return count(zooKeeper.getWatchManager().getChildWatches());
	}

	/**
	 * Watcher objects registered through {@code exists}, over all paths.
	 * @param zooKeeper the client
	 * @return the count
	 */
	public static int exists(ZooKeeper zooKeeper) {
		return count(zooKeeper.getWatchManager().getExistWatches());
	}

	/**
	 * Whether a watcher is registered through {@code getChildren} on one path.
	 * @param zooKeeper the client
	 * @param serverPath the path, as the server knows it
	 * @return whether the client keeps a child watch on it
	 */
	public static boolean childWatched(ZooKeeper zooKeeper, String serverPath) {
		Map<String, Set<Watcher>> watches = zooKeeper.getWatchManager().getChildWatches();
		synchronized (watches) {
			return watches.containsKey(serverPath);
		}
	}

	/**
	 * Whether a watcher is registered through {@code getData} on one path.
	 * @param zooKeeper the client
	 * @param serverPath the path, as the server knows it
	 * @return whether the client keeps a data watch on it
	 */
	public static boolean dataWatched(ZooKeeper zooKeeper, String serverPath) {
		Map<String, Set<Watcher>> watches = zooKeeper.getWatchManager().getDataWatches();
		synchronized (watches) {
			return watches.containsKey(serverPath);
		}
	}

	private static int count(Map<String, Set<Watcher>> watches) {
		synchronized (watches) {
			return watches.values().stream().mapToInt(Set::size).sum();
		}
	}

}
