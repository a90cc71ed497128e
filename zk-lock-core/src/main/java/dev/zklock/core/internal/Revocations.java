package dev.zklock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Revocation as Curator does it ({@code Revoker.attemptRevoke}, {@code makeRevocable}):
 * whoever wants a lock back writes {@code __REVOKE__} into the holder's node; a holder
 * that opted in watches its node's data and is told. It is a request: the holder decides
 * when to release. A lingering node is watched too, and a request ends its linger: nobody
 * holds it to decide. A watched node that goes is reported: if this JVM still holds it,
 * another client deleted it.
 */
public final class Revocations {

	/** Curator's {@code LockInternals.REVOKE_MESSAGE}. */
	public static final byte[] REVOKE = "__REVOKE__".getBytes(StandardCharsets.UTF_8);

	private static final Logger logger = LoggerFactory.getLogger(Revocations.class);

	private final ZkOps ops;

	/** The nodes watched for a request, by server path. */
	private final ConcurrentHashMap<String, HeldNode> watched = new ConcurrentHashMap<>();

	/** The registry's one watcher. */
	private final Watcher watcher;

	/** Where the entries of a node's lock path are found. */
	private final LockTables tables;

	/** Told when a watched node this JVM may still hold was deleted. */
	private final SessionTracker sessions;

	Revocations(ZkOps ops, Watcher watcher, LockTables tables, SessionTracker sessions) {
		this.ops = ops;
		this.watcher = watcher;
		this.tables = tables;
		this.sessions = sessions;
	}

	/**
	 * Tell {@code listener}, on behalf of {@code holder}, when revocation of the node is
	 * requested; the first listener of a node arms a watch on the node's data (one read).
	 */
	void listen(HeldNode node, Holder holder, Runnable listener) {
		if (node.addRevocationListener(holder, safely(listener))) {
			watch(node);
		}
	}

	/**
	 * Watch a lingering node for a request, with no listener: nobody holds it, so a
	 * request ends the linger. The read also finds a request made before it, while a
	 * holder that did not listen held the node.
	 */
	public void watchLingering(HeldNode node) {
		if (node.watchRevocation()) {
			watch(node);
		}
	}

	private void watch(HeldNode node) {
		this.watched.put(this.ops.serverPath(node.nodePath()), node);
		read(node);
	}

	/**
	 * The data of a node changed: look at it again, if it is watched. A node that went is
	 * forgotten without a read (no later node has its name, which carries the protection
	 * id of the one attempt that created it) and reported.
	 */
	void changed(String serverPath, boolean deleted) {
		if (deleted) {
			HeldNode gone = this.watched.remove(serverPath);
			if (gone != null) {
				deleted(gone);
			}
			return;
		}
		HeldNode node = this.watched.get(serverPath);
		if (node != null) {
			read(node);
		}
	}

	/**
	 * The connection changed: read again every node watched, since a read that failed
	 * with the connection left no watch behind.
	 */
	void reconnected() {
		this.watched.values().forEach(this::read);
	}

	/**
	 * The children of a lock path that hold, as each node's recipe says: the first mutex
	 * or write node, or the read nodes ahead of any write node, Curator's alike.
	 * @param children the children, in any order
	 * @return the names of the holding nodes
	 */
	public static List<String> holders(List<String> children) {
		List<String> queue = NodeNames.inQueueOrder(children);
		List<String> holders = new ArrayList<>();
		for (int i = 0; i < queue.size(); i++) {
			if (driverOf(queue.get(i)).blockerIndex(queue, i) == LockDriver.HOLDS) {
				holders.add(queue.get(i));
			}
		}
		return holders;
	}

	/**
	 * Say what a key's path holds when it holds no lock node, for a refusal, without
	 * naming any of it: the children are anyone's nodes, and their names are not the
	 * caller's to learn.
	 * @param children the path's children, none of them a lock node
	 * @return a sentence of detail
	 */
	public static String describeOthers(List<String> children) {
		boolean semaphore = children.contains(LockDriver.SEMAPHORE_LEASES)
				|| children.contains(LockDriver.SEMAPHORE_GUARD);
		if (semaphore) {
			return "it holds a semaphore's leases and guard, and semaphore permits are not revocable";
		}
		return "it has " + children.size() + ((children.size() == 1) ? " child" : " children")
				+ ", none of them an ephemeral lock node";
	}

	private static LockDriver driverOf(String nodeName) {
		if (nodeName.contains(LockDriver.READ.lockName())) {
			return LockDriver.READ;
		}
		return nodeName.contains(LockDriver.WRITE.lockName()) ? LockDriver.WRITE : LockDriver.MUTEX;
	}

	private void read(HeldNode node) {
		String serverPath = this.ops.serverPath(node.nodePath());
		this.ops.getData(node.nodePath(), this.watcher).whenComplete((read, ex) -> {
			if (ex != null) {
				// No watch was left: the next connection event reads again
				return;
			}
			if (read == null) {
				if (this.watched.remove(serverPath, node)) {
					deleted(node);
				}
			}
			else if (Arrays.equals(read.data(), REVOKE)) {
				node.revocationRequested().forEach(Runnable::run);
				requested(node);
			}
		});
	}

	/**
	 * A request was read, and the holders' listeners told: a node that lingers, which
	 * nobody holds to decide, goes.
	 */
	private void requested(HeldNode node) {
		this.tables.forPath(lockPathOf(node), (entry) -> entry.revocationRequested(node));
	}

	/**
	 * A node watched for revocation requests is gone. Every release and every end of a
	 * linger takes the node out of its entry before it sends the delete, and a node is
	 * never put back: a node still in its entry when its delete is seen was deleted by
	 * another client, and this JVM holds the lock no more. Only the exclusive and the
	 * read/write recipes' nodes are watched, and only their entries hold such a node.
	 */
	private void deleted(HeldNode node) {
		this.tables.forPath(lockPathOf(node), (entry) -> this.sessions.nodeDeleted(entry, node));
	}

	private static String lockPathOf(HeldNode node) {
		return ZKPaths.getPathAndNode(node.nodePath()).getPath();
	}

	private static Runnable safely(Runnable listener) {
		return () -> {
			try {
				listener.run();
			}
			catch (RuntimeException ex) {
				logger.warn("A revocation listener failed", ex);
			}
		};
	}

}
