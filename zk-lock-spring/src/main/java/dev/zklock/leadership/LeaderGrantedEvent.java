package dev.zklock.leadership;

import dev.zklock.core.leader.LeaderTerm;

/**
 * This instance leads a group now: published once its leader-only components have
 * started.
 *
 * @author zk-lock
 */
public class LeaderGrantedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an event.
	 * @param source the leadership that publishes it
	 * @param term the term that began
	 */
	public LeaderGrantedEvent(Object source, LeaderTerm term) {
		super(source, term);
	}

}
