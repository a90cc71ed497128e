package dev.zklock.template.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of {@link dev.zklock.template.ZkLockTemplate} (and so of
 * {@code @DistributedLock} and {@code @DistributedSemaphore}): the wait for a lock or
 * permit, and its hold. Their names and tags come from a convention: the default one, or
 * the application's ({@link ZkLockAcquireObservationConvention},
 * {@link ZkLockHeldObservationConvention}). With Micrometer's meter handler, the defaults
 * become the timers {@code zklock.acquire} and {@code zklock.held} and the long task
 * timers of the same names with {@code .active}. A reentrant call (the thread holds the
 * keys already) is observed by neither.
 *
 * @author zk-lock
 */
public enum ZkLockObservationDocumentation implements ObservationDocumentation {

	/**
	 * The wait for the locks of some keys, or a semaphore's permit:
	 * {@code zklock.acquire} by default, tagged {@link LowCardinalityKeyNames#LOCK_NAME
	 * lock.name}, {@link LowCardinalityKeyNames#KIND kind} and, once the wait has ended,
	 * {@link LowCardinalityKeyNames#OUTCOME outcome}.
	 */
	LOCK_ACQUIRE("zklock.acquire") {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultZkLockAcquireObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	},

	/**
	 * The hold of the locks of some keys, or of a permit, from the end of the wait to the
	 * release (which a minimum hold may delay past the end of the work):
	 * {@code zklock.held} by default, tagged {@link LowCardinalityKeyNames#LOCK_NAME
	 * lock.name}, {@link LowCardinalityKeyNames#KIND kind} and, once the hold has ended,
	 * {@link LowCardinalityKeyNames#OUTCOME outcome} ({@code released} or {@code lost}).
	 */
	LOCK_HELD("zklock.held") {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultZkLockHeldObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	private final String defaultName;

	ZkLockObservationDocumentation(String defaultName) {
		this.defaultName = defaultName;
	}

	/**
	 * The name the default convention gives. Not {@link #getName()}, which would override
	 * a custom convention's name.
	 */
	String defaultName() {
		return this.defaultName;
	}

	/**
	 * The tags of the observations by default. The keys themselves are never one: they
	 * are unbounded. A custom convention finds them in
	 * {@link ZkLockObservationContext#getKeys()}.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * The name of the lock: a {@code @DistributedLock}'s {@code name}, or its key
		 * expression when it has none, or the name given to the template. A purpose with
		 * few values, never a key.
		 */
		LOCK_NAME {

			@Override
			public String asString() {
				return "lock.name";
			}

		},

		/**
		 * What is taken on each key: {@code exclusive} (the exclusive lock), {@code read}
		 * or {@code write} (a side of the key's read/write lock), or {@code semaphore} (a
		 * permit of the key's semaphore).
		 */
		KIND {

			@Override
			public String asString() {
				return "kind";
			}

		},

		/**
		 * How the wait or the hold ended, only once it has ended (so not on the
		 * {@code .active} long task timers). A hold: {@code released} (the lease was held
		 * to the end) or {@code lost} (its session expired, or another client deleted its
		 * node, while held). A wait: {@code acquired}; a lock busy for the whole wait,
		 * counted as its caller handles it: {@code timeout} (thrown to the caller),
		 * {@code skipped} (the work is skipped) or {@code fallback} (other work runs
		 * instead); {@code skipped_unavailable} (ZooKeeper not connected or not replying,
		 * and the work skipped as a busy lock would be); or {@code error} (no connection,
		 * no reply, or any other failure, thrown or given to a fallback).
		 */
		OUTCOME {

			@Override
			public String asString() {
				return "outcome";
			}

		}

	}

}
