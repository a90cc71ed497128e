package dev.zklock.core.leader;

/**
 * Leader work found that its term is over: it ended, or its node is lost.
 *
 * @author zk-lock
 */
public class LeadershipLostException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String group;

	private final long epoch;

	/**
	 * Create an exception.
	 * @param group the group's name
	 * @param epoch the term's epoch
	 * @param why what ended it
	 */
	public LeadershipLostException(String group, long epoch, String why) {
		super("Leadership of group '" + group + "' (epoch " + epoch + ") is over: " + why);
		this.group = group;
		this.epoch = epoch;
	}

	/**
	 * Return the group's name.
	 * @return the group
	 */
	public String getGroup() {
		return this.group;
	}

	/**
	 * Return the epoch of the term that is over.
	 * @return the epoch
	 */
	public long getEpoch() {
		return this.epoch;
	}

}
