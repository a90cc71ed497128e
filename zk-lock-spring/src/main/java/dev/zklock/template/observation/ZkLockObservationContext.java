package dev.zklock.template.observation;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What a convention knows of one wait for a lock or permit, or of one hold: which of the
 * {@link ZkLockObservationDocumentation observations} it is, the lock's name and kind,
 * the keys and, for a wait that has ended, its outcome.
 * <p>
 * The keys are there for custom conventions, as high-cardinality information (a span
 * attribute, say); no default convention tags them: they are unbounded, and as metric
 * tags they would make one series per key.
 * <p>
 * The context starts with the default convention's name: handlers are picked when the
 * observation is created, before its convention names it, and one that picks by name
 * (rather than by this type) still finds zk-lock's observations. The convention's name
 * replaces it when the observation starts.
 *
 * @author zk-lock
 */
public class ZkLockObservationContext extends Observation.Context {

	private final ZkLockObservationDocumentation documentation;

	private final String lockName;

	private final String kind;

	private final List<String> keys;

	private @Nullable String outcome;

	/**
	 * Create a new instance.
	 * @param documentation the observation this is the context of
	 * @param lockName the low-cardinality name of the lock
	 * @param kind what is taken on each key: {@code exclusive}, {@code read},
	 * {@code write} or {@code semaphore}
	 * @param keys the keys, in the order given
	 */
	public ZkLockObservationContext(ZkLockObservationDocumentation documentation, String lockName, String kind,
			Collection<String> keys) {
		this.documentation = Objects.requireNonNull(documentation, "documentation must not be null");
		this.lockName = Objects.requireNonNull(lockName, "lockName must not be null");
		this.kind = Objects.requireNonNull(kind, "kind must not be null");
		this.keys = List.copyOf(keys);
		setName(documentation.defaultName());
	}

	/**
	 * Return which observation this is the context of: what a convention's
	 * {@code supportsContext} tells the wait from the hold by.
	 * @return the observation
	 */
	public ZkLockObservationDocumentation getDocumentation() {
		return this.documentation;
	}

	/**
	 * Return the name of the lock, as {@code @DistributedLock} or the template's caller
	 * gave it.
	 * @return the low-cardinality lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * Return what is taken on each key.
	 * @return {@code exclusive}, {@code read}, {@code write} or {@code semaphore}
	 */
	public String getKind() {
		return this.kind;
	}

	/**
	 * Return the keys locked, one or more; a semaphore's permit is taken on one.
	 * Unbounded values: never a metric tag.
	 * @return the keys, unmodifiable
	 */
	public List<String> getKeys() {
		return this.keys;
	}

	/**
	 * Return how the wait or the hold ended.
	 * @return for a wait {@code acquired}, {@code timeout}, {@code skipped},
	 * {@code fallback} or {@code error}, for a hold {@code released} or {@code lost} (see
	 * {@link ZkLockObservationDocumentation.LowCardinalityKeyNames#OUTCOME}); or
	 * {@code null} while the wait or the hold goes on
	 */
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the wait or the hold ended, before its observation stops.
	 * @param outcome the outcome
	 */
	public void setOutcome(@Nullable String outcome) {
		this.outcome = outcome;
	}

}
