package dev.zklock.core;

/**
 * One participant queued for a key in ZooKeeper: one JVM using this engine, or one plain
 * Curator mutex.
 *
 * @param node the node name, {@code _c_<uuid>-lock-<sequence>}
 * @param sequence the sequence part of the name, which orders the queue
 * @param owner the node's data: {@code pid@host} for this engine, the client's address
 * for Curator
 * @param fencingToken the node's creation zxid
 * @param holder whether this participant holds the lock (is first in the queue)
 * @param sessionId the ZooKeeper session that owns the node
 * @author zk-lock
 */
public record Participant(String node, String sequence, String owner, long fencingToken, boolean holder,
		long sessionId) {
}
