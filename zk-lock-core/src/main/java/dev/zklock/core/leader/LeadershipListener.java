package dev.zklock.core.leader;

/**
 * Told when a {@link LeaderCandidate} starts and stops leading. Both methods run on the
 * candidate's own thread, one at a time: {@link #leadershipRevoked} may block while
 * leader work drains, and the node is given up only when it returns (for a hand-off), so
 * keep it bounded.
 *
 * @author zk-lock
 */
public interface LeadershipListener {

	/**
	 * This candidate leads now.
	 * @param term the new term
	 */
	void leadershipGranted(LeaderTerm term);

	/**
	 * This candidate's term ended. For a {@linkplain TermEnd#isHandOff() hand-off} the
	 * node is still held while this runs; otherwise it is already gone or in doubt, and
	 * leader work should stop at once.
	 * @param term the term that ended
	 * @param why why it ended
	 */
	void leadershipRevoked(LeaderTerm term, TermEnd why);

}
