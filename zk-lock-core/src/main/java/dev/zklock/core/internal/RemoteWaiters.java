package dev.zklock.core.internal;

/**
 * Where the engine hears of participants of other JVMs queued behind the nodes this JVM
 * holds, so that local hand-offs and joins make way for them: the child watch on a lock
 * path (a child joined or left), the watch removed by other code on the client, and the
 * connection lost, after which no watch can be trusted until a list arms one again. This
 * class tells every entry of the path ({@link TableEntry#childrenChanged} and the like);
 * each entry keeps its mark, and the hand-offs or joins made since it was raised, in a
 * {@link RemoteWaiterMark}, which its recipe settles: a held exclusive node listed again
 * when it stands only for want of a watch, a read node listed again to tell a writer from
 * a reader.
 */
final class RemoteWaiters {

	private final ZkOps ops;

	private final LockTables tables;

	RemoteWaiters(ZkOps ops, LockTables tables) {
		this.ops = ops;
		this.tables = tables;
	}

	/**
	 * The child watch fired on a lock path (server path): another participant may have
	 * joined the queue behind the node this JVM holds.
	 */
	void childrenChanged(String serverPath) {
		this.tables.forPath(this.ops.withoutNamespace(serverPath), TableEntry::childrenChanged);
	}

	/**
	 * Other code on the client removed the child watch on a lock path (server path): a
	 * participant that queues behind the node this JVM holds now fires nothing. So the
	 * bound on hand-offs and joins while another participant waits holds whatever other
	 * code does with the client's watches.
	 */
	void childWatchRemoved(String serverPath) {
		this.tables.forPath(this.ops.withoutNamespace(serverPath), TableEntry::childWatchRemoved);
	}

	/**
	 * The client lost its connection (or its session): a child watch may be re-armed on
	 * reconnect, or may not (the client can be told not to re-arm, and a lock path gone
	 * meanwhile fires another event), so every lock that hands on or joins locally counts
	 * as having a remote waiter until its next child list read with the watch, and
	 * lingering nodes go.
	 */
	void connectionDown() {
		this.tables.forEachEntry(TableEntry::connectionDown);
	}

}
