package dev.zklock.core.leader;

/**
 * What a leader does while its connection to ZooKeeper is suspended: the session may
 * still be alive, and no other candidate can lead before it expires on the server.
 *
 * @author zk-lock
 */
public enum OnSuspended {

	/**
	 * Lead on until the session is known to be lost: a short blip does not restart leader
	 * work. The term's {@link LeaderTerm#state() state} is
	 * {@link dev.zklock.core.LeaseState#UNCERTAIN UNCERTAIN} meanwhile. If the session
	 * expires, another candidate leads with a greater epoch, and fencing refuses this
	 * term's writes once the new leader has written.
	 */
	LEAD_ON,

	/**
	 * End the term at once, as Spring Integration's {@code LeaderInitiator} does, and
	 * queue again once reconnected: leader work never runs unconnected, and every blip
	 * costs a new term.
	 */
	STEP_DOWN

}
