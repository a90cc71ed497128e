package dev.zklock.template.observation;

/**
 * The default {@link ZkLockHeldObservationConvention}: the observation
 * {@code zklock.held}, tagged {@code lock.name}, {@code kind} and, once the hold has
 * ended, {@code outcome} ({@code released} or {@code lost}). Extend it to add tags and
 * keep these.
 *
 * @author zk-lock
 * @see ZkLockObservationDocumentation#LOCK_HELD
 */
public class DefaultZkLockHeldObservationConvention extends ZkLockObservationConventionSupport
		implements ZkLockHeldObservationConvention {

	/**
	 * Create a new instance.
	 */
	public DefaultZkLockHeldObservationConvention() {
		super(ZkLockObservationDocumentation.LOCK_HELD);
	}

}
