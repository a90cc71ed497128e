package dev.zklock.core.leader;

/**
 * Why a {@link LeaderTerm} ended.
 *
 * @author zk-lock
 */
public enum TermEnd {

	/**
	 * The term's node is gone: its session expired, or another client deleted it. Another
	 * candidate may lead already; the term's fenced writes are refused once it has
	 * written.
	 */
	LOST(false),

	/**
	 * The connection was suspended and the candidate was told to step down then
	 * ({@link OnSuspended#STEP_DOWN}).
	 */
	SUSPENDED(false),

	/**
	 * Someone asked for the leadership (the endpoint, or Curator's
	 * {@code Revoker.attemptRevoke} on the node): the candidate stepped down and queues
	 * again.
	 */
	REVOKED(true),

	/**
	 * The candidate stepped down through {@link LeaderCandidate#yieldLeadership()}, and
	 * queues again.
	 */
	YIELDED(true),

	/**
	 * The candidate was closed, for example because the application stops.
	 */
	CLOSED(true);

	private final boolean handOff;

	TermEnd(boolean handOff) {
		this.handOff = handOff;
	}

	/**
	 * Return whether the leader gave the term up on purpose, and so hands it over: its
	 * node is deleted once the listener returns, rather than already gone or in doubt.
	 * @return whether this end is a hand-off
	 */
	public boolean isHandOff() {
		return this.handOff;
	}

}
