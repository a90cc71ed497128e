package dev.zklock.core.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.curator.utils.ZKPaths;

/**
 * What a held node's lock path, listed again with the child watch, shows behind the node:
 * how an entry settles its {@link RemoteWaiterMark}. One reading for every recipe: the
 * exclusive entry lists a node whose mark stands only for want of a watch, the read/write
 * entry its read node to tell another JVM's reader from a writer; what each then does
 * with the mark is its own.
 */
public enum QueueBehind {

	/** Nobody waits behind the node: the watch the list armed tells of the next. */
	NOBODY,

	/** A participant waits behind the node for it to go. */
	OTHERS,

	/** The node is missing from its own lock path's list: nothing can be ruled out. */
	NODE_MISSING;

	/**
	 * Read a child list of {@code node}'s lock path.
	 * @param driver the recipe's driver, which tells who waits behind a holding node
	 * @param node the held node
	 * @param children the lock path's children, in any order
	 * @return what the list shows behind the node
	 */
	public static QueueBehind of(LockDriver driver, HeldNode node, List<String> children) {
		List<String> queue = NodeNames.inQueueOrder(children);
		int ours = queue.indexOf(ZKPaths.getNodeFromPath(node.nodePath()));
		if (ours < 0) {
			return NODE_MISSING;
		}
		return driver.othersWaitBehind(queue, ours) ? OTHERS : NOBODY;
	}

	/**
	 * List {@code node}'s lock path again with the child watch, not waited for, and tell
	 * {@code listed}, on the client's event thread, what it shows behind the node: child
	 * events after the list come after that, on the same thread.
	 * @param engine the engine that sends the list
	 * @param path the lock path
	 * @param driver the recipe's driver
	 * @param node the held node
	 * @param listed told what the list shows
	 * @return the list, completed exceptionally if it failed
	 */
	public static CompletableFuture<List<String>> list(Engine engine, String path, LockDriver driver, HeldNode node,
			Consumer<QueueBehind> listed) {
		return engine.listWatched(path, (children) -> listed.accept(of(driver, node, children)));
	}

}
