package dev.zklock.leadership;

import org.springframework.context.ApplicationEvent;

import dev.zklock.core.leader.LeaderTerm;

/**
 * A change of this instance's leadership of a group, published by {@link ZkLeadership}.
 *
 * @author zk-lock
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient LeaderTerm term;

	/**
	 * Create an event.
	 * @param source the leadership that publishes it
	 * @param term the term that began or ended
	 */
	protected LeadershipEvent(Object source, LeaderTerm term) {
		super(source);
		this.term = term;
	}

	/**
	 * Return the group's name.
	 * @return the group
	 */
	public String getGroup() {
		return this.term.group().name();
	}

	/**
	 * Return the term's epoch.
	 * @return the epoch
	 */
	public long getEpoch() {
		return this.term.epoch();
	}

	/**
	 * Return this participant's id ({@code pid@host}).
	 * @return the participant id
	 */
	public String getParticipantId() {
		return this.term.participantId();
	}

	/**
	 * Return the term.
	 * @return the term
	 */
	public LeaderTerm getTerm() {
		return this.term;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[group=" + getGroup() + ", epoch=" + getEpoch() + ", participant="
				+ getParticipantId() + "]";
	}

}
