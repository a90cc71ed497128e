package dev.zklock.template.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import dev.zklock.template.observation.ZkLockObservationDocumentation.LowCardinalityKeyNames;

/**
 * The default {@link ZkLockHeldObservationConvention}: the observation
 * {@code zklock.held}, tagged {@code lock.name}, {@code kind} and, once the hold has
 * ended, {@code outcome} ({@code released} or {@code lost}). Extend it to add tags and
 * keep these.
 *
 * @author zk-lock
 * @see ZkLockObservationDocumentation#LOCK_HELD
 */
public class DefaultZkLockHeldObservationConvention implements ZkLockHeldObservationConvention {

	@Override
	public String getName() {
		return ZkLockObservationDocumentation.LOCK_HELD.defaultName();
	}

	/**
	 * Return the tags: no {@code outcome} while the hold goes on, so that the long task
	 * timer of holds in progress is tagged by lock name and kind only.
	 */
	@Override
	public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
		KeyValues keyValues = KeyValues.of(lockName(context), kind(context));
		String outcome = context.getOutcome();
		return (outcome != null) ? keyValues.and(LowCardinalityKeyNames.OUTCOME.withValue(outcome)) : keyValues;
	}

	/**
	 * Return the {@code lock.name} tag.
	 * @param context the context
	 * @return the tag
	 */
	protected KeyValue lockName(ZkLockObservationContext context) {
		return LowCardinalityKeyNames.LOCK_NAME.withValue(context.getLockName());
	}

	/**
	 * Return the {@code kind} tag.
	 * @param context the context
	 * @return the tag
	 */
	protected KeyValue kind(ZkLockObservationContext context) {
		return LowCardinalityKeyNames.KIND.withValue(context.getKind());
	}

}
