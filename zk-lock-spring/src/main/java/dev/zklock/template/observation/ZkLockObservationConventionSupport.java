package dev.zklock.template.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import dev.zklock.template.observation.ZkLockObservationDocumentation.LowCardinalityKeyNames;

/**
 * What the two default conventions share: the name their documentation gives, and the
 * same tags, {@code lock.name}, {@code kind} and, once the wait or the hold has ended,
 * {@code outcome}. Package-private: applications extend the public defaults.
 *
 * @author zk-lock
 */
abstract class ZkLockObservationConventionSupport {

	private final ZkLockObservationDocumentation documentation;

	ZkLockObservationConventionSupport(ZkLockObservationDocumentation documentation) {
		this.documentation = documentation;
	}

	/**
	 * Return the name of the observation, as its documentation gives it.
	 * @return the name
	 */
	public String getName() {
		return this.documentation.defaultName();
	}

	/**
	 * Return the tags: no {@code outcome} while the wait or the hold goes on, so that the
	 * long task timer of those in progress is tagged by lock name and kind only.
	 * @param context the context
	 * @return the tags
	 */
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
