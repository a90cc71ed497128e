package dev.zklock.core.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * The one ZooKeeper {@link Watcher} of a registry, for every watch the engine sets: the
 * data watch on a predecessor a participant waits behind (and on the participant's own
 * node, when the predecessor's delete would make it hold), and the child watch on a lock
 * path that tells a holder another participant queued behind it, or a semaphore's waiting
 * node that a node ahead of it went, and the data watch on a held or lingering node for a
 * revocation request.
 *
 * <p>
 * One object rather than one per wait, because the ZooKeeper client keeps every distinct
 * watcher object until its watch fires: a participant that timed out behind a long holder
 * would otherwise leave a watcher behind per attempt. The client keeps a watcher once per
 * path, so this one costs one entry per watched path, however many attempts wait.
 */
final class LockWatches implements Watcher {

	/**
	 * Who waits for which node (server path) to change: each completed with whether it
	 * was deleted. Several participants of a registry can wait on one node: two recipes
	 * on one path behind the same node, or a participant behind the node another watches
	 * as its own.
	 */
	private final ConcurrentHashMap<String, List<CompletableFuture<Boolean>>> predecessors = new ConcurrentHashMap<>();

	/**
	 * Who waits for the child list of a lock path (server path) to change: one future per
	 * path, shared by its waiters, replaced once completed.
	 */
	private final ConcurrentHashMap<String, CompletableFuture<Void>> childLists = new ConcurrentHashMap<>();

	/** Told what the watches hear, besides the waiters. */
	private final Events events;

	LockWatches(Events events) {
		this.events = events;
	}

	@Override
	public void process(WatchedEvent event) {
		switch (event.getType()) {
			case None -> {
				// The connection changed: every waiter looks again, on whatever session
				// it has
				this.predecessors.values().forEach((waiters) -> complete(waiters, false));
				this.childLists.values().forEach((waiter) -> waiter.complete(null));
				KeeperState state = event.getState();
				if (state != KeeperState.SyncConnected && state != KeeperState.SaslAuthenticated) {
					this.events.connectionDown();
				}
				this.events.connectionChanged();
			}
			case NodeChildrenChanged -> {
				CompletableFuture<Void> waiter = this.childLists.remove(event.getPath());
				if (waiter != null) {
					waiter.complete(null);
				}
				this.events.childrenChanged(event.getPath());
			}
			case ChildWatchRemoved -> {
				// Other code on the client removed the watch (removeAllWatches): a change
				// it would have told of goes unheard, so waiters look again, which arms
				// it again, and holders count a participant as maybe queued until a list
				// read with the watch tells
				CompletableFuture<Void> waiter = this.childLists.remove(event.getPath());
				if (waiter != null) {
					waiter.complete(null);
				}
				this.events.childWatchRemoved(event.getPath());
			}
			default -> {
				// A change of a node, or its data watch removed by other code on the
				// client (DataWatchRemoved): either way, whoever waits on it looks again,
				// and a node watched for revocation is read again, which arms the watch
				// again
				List<CompletableFuture<Boolean>> waiters = this.predecessors.remove(event.getPath());
				if (waiters != null) {
					complete(waiters, event.getType() == EventType.NodeDeleted);
				}
				this.events.nodeChanged(event.getPath(), event.getType() == EventType.NodeDeleted);
				if (event.getType() == EventType.NodeDeleted) {
					// A child watch re-armed on reconnect for a lock path gone meanwhile
					// fires as the path's deletion, not as a child change
					this.events.childrenChanged(event.getPath());
				}
			}
		}
	}

	/**
	 * Register interest in a change of a node (a predecessor, or the participant's own
	 * node), before the read that sets the watch, so that no event can come between the
	 * two unseen.
	 * @param serverPath the node's server path
	 * @return a future completed when the node changes or the connection does:
	 * {@code true} only if the node was deleted
	 */
	CompletableFuture<Boolean> expect(String serverPath) {
		CompletableFuture<Boolean> waiter = new CompletableFuture<>();
		// Beside the others: replacing one would wake it to read the list and expect
		// again, replacing this one, in a loop of round trips for as long as the node
		// lives
		this.predecessors.compute(serverPath, (path, waiters) -> {
			List<CompletableFuture<Boolean>> more = (waiters != null) ? waiters : new CopyOnWriteArrayList<>();
			more.add(waiter);
			return more;
		});
		return waiter;
	}

	/**
	 * Register interest in a change of a lock path's child list, before the read that
	 * sets the child watch.
	 * @param serverPath the lock path's server path
	 * @return a future completed when the child list changes or the connection does
	 */
	CompletableFuture<Void> expectChildren(String serverPath) {
		return this.childLists.compute(serverPath,
				(path, current) -> (current != null && !current.isDone()) ? current : new CompletableFuture<>());
	}

	/**
	 * Stop waiting; the watch itself stays with the ZooKeeper client until it fires, once
	 * per path.
	 * @param serverPath the node's server path
	 * @param waiter what {@link #expect} returned
	 */
	void forget(String serverPath, CompletableFuture<Boolean> waiter) {
		this.predecessors.computeIfPresent(serverPath, (path, waiters) -> {
			waiters.remove(waiter);
			return waiters.isEmpty() ? null : waiters;
		});
	}

	private static void complete(List<CompletableFuture<Boolean>> waiters, boolean deleted) {
		waiters.forEach((waiter) -> waiter.complete(deleted));
	}

	/**
	 * What the watches hear, besides the waiters they complete: all on the client's one
	 * event thread, in the order the events came.
	 */
	interface Events {

		/**
		 * The children of a lock path changed, or the path was deleted.
		 * @param serverPath the lock path's server path
		 */
		void childrenChanged(String serverPath);

		/**
		 * Other code on the client removed the child watch on a lock path.
		 * @param serverPath the lock path's server path
		 */
		void childWatchRemoved(String serverPath);

		/**
		 * The data of a node changed, or the node was deleted.
		 * @param serverPath the node's server path
		 * @param deleted whether it was deleted
		 */
		void nodeChanged(String serverPath, boolean deleted);

		/**
		 * The connection changed.
		 */
		void connectionChanged();

		/**
		 * The connection went down; told before {@link #connectionChanged}.
		 */
		void connectionDown();

	}

}
