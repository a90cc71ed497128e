package dev.zklock.template;

import java.util.Collection;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.template.observation.DefaultZkLockAcquireObservationConvention;
import dev.zklock.template.observation.DefaultZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockObservationContext;
import dev.zklock.template.observation.ZkLockObservationDocumentation;

/**
 * The observations of a {@link ZkLockTemplate}: each wait as {@code zklock.acquire},
 * tagged with how it ended, and each hold as {@code zklock.held}, tagged once it ended
 * with whether its lease was lost.
 */
final class LockObservations {

	/**
	 * The {@code outcome} of a wait whose caller skips the work while ZooKeeper is
	 * unavailable.
	 */
	private static final String SKIPPED_UNAVAILABLE = "skipped_unavailable";

	/** The {@code outcome} of a hold that ended with its lease held. */
	static final String RELEASED = "released";

	/** The {@code outcome} of a hold that ended with its lease lost. */
	static final String LOST = "lost";

	private static final ZkLockAcquireObservationConvention DEFAULT_ACQUIRE_CONVENTION = new DefaultZkLockAcquireObservationConvention();

	private static final ZkLockHeldObservationConvention DEFAULT_HELD_CONVENTION = new DefaultZkLockHeldObservationConvention();

	private final ObservationRegistry registry;

	private volatile @Nullable ZkLockAcquireObservationConvention acquireConvention;

	private volatile @Nullable ZkLockHeldObservationConvention heldConvention;

	LockObservations(ObservationRegistry registry) {
		this.registry = registry;
	}

	void setAcquireConvention(@Nullable ZkLockAcquireObservationConvention convention) {
		this.acquireConvention = convention;
	}

	void setHeldConvention(@Nullable ZkLockHeldObservationConvention convention) {
		this.heldConvention = convention;
	}

	/**
	 * Run an acquisition under the {@code zklock.acquire} observation and start the
	 * {@code zklock.held} one. If observing fails once the locks are taken, they are
	 * given back before the failure propagates: no path leaves them held with nobody to
	 * release them.
	 * @return the started hold observation
	 */
	Observation acquire(LockDefinition definition, Collection<String> keys, RecipeLock recipeLock,
			Runnable acquisition) {
		Observation observation = ZkLockObservationDocumentation.LOCK_ACQUIRE
			.observation(this.acquireConvention, DEFAULT_ACQUIRE_CONVENTION,
					() -> new ZkLockObservationContext(ZkLockObservationDocumentation.LOCK_ACQUIRE, definition.name(),
							definition.kind(), keys),
					this.registry)
			.start();
		try {
			acquisition.run();
		}
		catch (LockAcquisitionException ex) {
			String outcome = switch (ex.getReason()) {
				case HELD_LOCALLY, HELD_REMOTELY -> definition.busyOutcome().outcome();
				// Skipped, as the annotation skips, and counted apart: an outage
				case NOT_CONNECTED, NO_REPLY ->
					(definition.busyOutcome() == LockDefinition.BusyOutcome.SKIPPED) ? SKIPPED_UNAVAILABLE : "error";
				default -> "error";
			};
			stop(observation, outcome);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			stop(observation, "error");
			throw ex;
		}
		try {
			stop(observation, "acquired");
			return ZkLockObservationDocumentation.LOCK_HELD
				.observation(this.heldConvention, DEFAULT_HELD_CONVENTION,
						() -> new ZkLockObservationContext(ZkLockObservationDocumentation.LOCK_HELD, definition.name(),
								definition.kind(), keys),
						this.registry)
				.start();
		}
		catch (RuntimeException | Error ex) {
			Hold.release(recipeLock, null, ex);
			throw ex;
		}
	}

	/**
	 * Stop an observation with its outcome, which the convention turns into a tag. An
	 * observation that is off (no registry, or filtered out by a predicate) has a context
	 * of its own, and nothing to record.
	 */
	static void stop(Observation observation, String outcome) {
		if (observation.getContext() instanceof ZkLockObservationContext context) {
			context.setOutcome(outcome);
		}
		observation.stop();
	}

}
