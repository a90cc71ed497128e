package dev.zklock.core.leader;

import java.time.Instant;

/**
 * One node in a leadership group's queue, of any process, as every instance reads it: the
 * first leads.
 *
 * @param node the node's name
 * @param participantId the node's data: {@code pid@host} for this engine, the id a
 * Curator {@code LeaderSelector} was given
 * @param epoch the node's creation zxid: the leader's epoch, for the first
 * @param sessionId the ZooKeeper session that owns the node
 * @param leader whether this member leads
 * @param joined when the node was made, by the ZooKeeper leader's clock
 * @param since when this member began to lead (for a zk-lock leader; when it joined, for
 * a Curator one), or when it joined (for a candidate that does not lead)
 * @author zk-lock
 */
public record GroupMember(String node, String participantId, long epoch, long sessionId, boolean leader, Instant joined,
		Instant since) {

	/**
	 * Return the host part of the participant id ({@code pid@host}), or the whole id if
	 * it has none.
	 * @return the host
	 */
	public String host() {
		int at = this.participantId.indexOf('@');
		return (at >= 0) ? this.participantId.substring(at + 1) : this.participantId;
	}

}
