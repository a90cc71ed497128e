package dev.zklock.template;

import java.time.Duration;
import java.util.Collection;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Takes what a {@link LockDefinition} asks for, for a {@link ZkLockTemplate}: under the
 * template's observations, with the definition's wait, refusing what cannot be held (a
 * read or write side for work that outlives the call, a key this thread holds already for
 * such work or with a minimum hold, any minimum hold once the template is stopped).
 */
final class Acquirer {

	private final ZkLockRegistry registry;

	private final LockObservations observations;

	private final MinimumHoldScheduler minimumHolds;

	Acquirer(ZkLockRegistry registry, LockObservations observations, MinimumHoldScheduler minimumHolds) {
		this.registry = registry;
		this.observations = observations;
		this.minimumHolds = minimumHolds;
	}

	/**
	 * What is taken for work that outlives the call must become a lease. A read or write
	 * side cannot: it belongs to its thread. A lease cannot share a thread's hold, so the
	 * thread must hold none of the keys' exclusive locks; with a minimum hold this is a
	 * busy lock, not a misuse: such a lock is not reentrant. A permit is a lease from the
	 * start.
	 */
	RecipeLock forWorkThatOutlivesTheCall(LockDefinition definition, Collection<String> keys) {
		if (definition.permits() == 0 && definition.mode() != LockMode.EXCLUSIVE) {
			throw new IllegalArgumentException("Lock '" + definition.name() + "' takes the " + definition.mode()
					+ " side of a read/write lock, which belongs to the thread that took it and cannot be held for "
					+ "work that outlives the call; run the work on this thread (execute), or take an exclusive lock");
		}
		RecipeLock recipeLock = RecipeLock.of(this.registry, definition, keys);
		String held = (definition.permits() == 0 && definition.holdAtLeast() == null) ? heldHere(keys) : null;
		if (held != null) {
			throw new IllegalStateException("Cannot lock '" + held + "' for work that outlives this call: the thread "
					+ Thread.currentThread().getName() + " already holds it, and its hold ends before that work "
					+ "does. Start the work outside the code that holds '" + held + "'.");
		}
		return recipeLock;
	}

	Duration waitAtMost(LockDefinition definition) {
		Duration own = definition.waitAtMost();
		return (own != null) ? own : this.registry.getOptions().defaultWait();
	}

	/**
	 * Return the first of the keys this thread holds already, if any.
	 */
	private @Nullable String heldHere(Collection<String> keys) {
		for (String key : keys) {
			if (this.registry.obtain(key).isHeldByCurrentThread()) {
				return key;
			}
		}
		return null;
	}

	/**
	 * Acquire under the {@code zklock.acquire} observation and start the
	 * {@code zklock.held} one.
	 * @return the started hold observation
	 */
	Observation acquire(LockDefinition definition, RecipeLock recipeLock, Collection<String> keys) {
		return this.observations.acquire(definition, keys, recipeLock, () -> {
			if (definition.holdAtLeast() != null) {
				notStopped(definition, keys);
			}
			if (definition.holdAtLeast() != null && definition.permits() == 0) {
				notHeldHere(definition, keys);
			}
			recipeLock.acquire(waitAtMost(definition));
		});
	}

	/**
	 * A stopped template takes no lock with a minimum hold: the application is shutting
	 * down, and could not keep it.
	 */
	private void notStopped(LockDefinition definition, Collection<String> keys) {
		if (!this.minimumHolds.isRunning()) {
			String key = keys.iterator().next();
			throw new LockAcquisitionException(key, this.registry.lockPath(key), Duration.ZERO,
					LockAcquisitionException.Reason.CLOSED, "the application is stopping, and a lock held at least "
							+ definition.holdAtLeast() + " is not taken then: its minimum hold could not be kept",
					null);
		}
	}

	/**
	 * A lock with a minimum hold is not reentrant: the hold outlives the work, so a
	 * thread that holds a key already cannot take it again; it finds the lock busy.
	 */
	private void notHeldHere(LockDefinition definition, Collection<String> keys) {
		String held = heldHere(keys);
		if (held != null) {
			throw new LockAcquisitionException(held, this.registry.lockPath(held), Duration.ZERO,
					LockAcquisitionException.Reason.HELD_LOCALLY,
					"by this very thread, and a lock held at least " + definition.holdAtLeast() + " is not reentrant",
					null);
		}
	}

}
