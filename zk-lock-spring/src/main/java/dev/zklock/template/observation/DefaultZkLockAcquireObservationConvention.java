package dev.zklock.template.observation;

/**
 * The default {@link ZkLockAcquireObservationConvention}: the observation
 * {@code zklock.acquire}, tagged {@code lock.name}, {@code kind} and, once the wait has
 * ended, {@code outcome}. Extend it to add tags and keep these.
 *
 * @author zk-lock
 * @see ZkLockObservationDocumentation#LOCK_ACQUIRE
 */
public class DefaultZkLockAcquireObservationConvention extends ZkLockObservationConventionSupport
		implements ZkLockAcquireObservationConvention {

	/**
	 * Create a new instance.
	 */
	public DefaultZkLockAcquireObservationConvention() {
		super(ZkLockObservationDocumentation.LOCK_ACQUIRE);
	}

}
