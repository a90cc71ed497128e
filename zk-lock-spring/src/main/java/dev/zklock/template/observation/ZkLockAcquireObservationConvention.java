package dev.zklock.template.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the wait for a lock or permit
 * ({@link ZkLockObservationDocumentation#LOCK_ACQUIRE}). Implement it, or extend
 * {@link DefaultZkLockAcquireObservationConvention} to keep its tags, and give it to the
 * template (with Spring Boot, declare it as a bean) to replace the default.
 *
 * @author zk-lock
 * @see DefaultZkLockAcquireObservationConvention
 */
public interface ZkLockAcquireObservationConvention extends ObservationConvention<ZkLockObservationContext> {

	/**
	 * Support the contexts of this observation only: both observations share a context
	 * type, and a {@link io.micrometer.observation.GlobalObservationConvention} for one
	 * must not take over the other.
	 */
	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof ZkLockObservationContext zkLock
				&& zkLock.getDocumentation() == ZkLockObservationDocumentation.LOCK_ACQUIRE;
	}

}
