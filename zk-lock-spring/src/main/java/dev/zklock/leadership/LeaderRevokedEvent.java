package dev.zklock.leadership;

import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.TermEnd;

/**
 * This instance no longer leads a group: published as soon as the term ends, before
 * leader work drains and, for a hand-off, before the node is given up.
 *
 * @author zk-lock
 */
public class LeaderRevokedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	private final TermEnd why;

	/**
	 * Create an event.
	 * @param source the leadership that publishes it
	 * @param term the term that ended
	 * @param why why it ended
	 */
	public LeaderRevokedEvent(Object source, LeaderTerm term, TermEnd why) {
		super(source, term);
		this.why = why;
	}

	/**
	 * Return why the term ended.
	 * @return why
	 */
	public TermEnd getWhy() {
		return this.why;
	}

	@Override
	public String toString() {
		return super.toString().replace("]", ", why=" + this.why + "]");
	}

}
