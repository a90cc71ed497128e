package dev.zklock.template;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How a {@link ZkLockTemplate} takes and holds a lock: its name in metrics, the wait, a minimum
 * hold, and how the caller handles a busy lock (which decides how the failed wait is counted).
 * Immutable; each {@code with...} method returns a copy.
 *
 * <pre class="code">
 * LockDefinition nightly = LockDefinition.named("nightly-report")
 *     .withWait(Duration.ZERO)
 *     .withHoldAtLeast(Duration.ofSeconds(30))
 *     .withWhenBusy(LockDefinition.WhenBusy.SKIP);
 * </pre>
 *
 * @author zk-lock
 */
public final class LockDefinition {

	/** The longest minimum hold: far beyond any schedule, and within a nanosecond deadline. */
	static final Duration MAX_HOLD_AT_LEAST = Duration.ofDays(36_500);

	private final String name;

	private final @Nullable Duration wait;

	private final @Nullable Duration holdAtLeast;

	private final WhenBusy whenBusy;

	private LockDefinition(String name, @Nullable Duration wait, @Nullable Duration holdAtLeast, WhenBusy whenBusy) {
		this.name = name;
		this.wait = wait;
		this.holdAtLeast = holdAtLeast;
		this.whenBusy = whenBusy;
	}

	/**
	 * Return a definition with a name, the registry's default wait, no minimum hold, and a busy
	 * lock thrown to the caller.
	 * @param name the low-cardinality name of the lock, for metrics and logs: a purpose, never
	 * the key
	 * @return the definition
	 */
	public static LockDefinition named(String name) {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank()) {
			throw new IllegalArgumentException("A lock name must not be blank");
		}
		return new LockDefinition(name, null, null, WhenBusy.THROW);
	}

	/**
	 * A definition with a name and a wait only, as the shorter template methods take them, in
	 * one step: those run on every call.
	 */
	static LockDefinition of(String name, @Nullable Duration wait) {
		LockDefinition named = named(name);
		return (wait != null) ? named.withWait(wait) : named;
	}

	/**
	 * Return a copy with another wait.
	 * @param wait the longest wait; {@link Duration#ZERO} makes one attempt; {@code null} uses
	 * the registry's default wait
	 * @return the copy
	 * @throws IllegalArgumentException if the wait is negative
	 */
	public LockDefinition withWait(@Nullable Duration wait) {
		if (wait != null && wait.isNegative()) {
			throw new IllegalArgumentException("The wait of lock '" + this.name + "' must not be negative, but was "
					+ wait);
		}
		return new LockDefinition(this.name, wait, this.holdAtLeast, this.whenBusy);
	}

	/**
	 * Return a copy with a minimum hold: when the work ends sooner, the lock stays held until
	 * that long after it was acquired, then the template releases it. Such a lock is not
	 * reentrant: a thread that holds one of its keys already finds it busy.
	 * @param holdAtLeast the minimum hold, {@code null} or zero for none
	 * @return the copy
	 * @throws IllegalArgumentException if the duration is negative or over 100 years
	 */
	public LockDefinition withHoldAtLeast(@Nullable Duration holdAtLeast) {
		if (holdAtLeast != null && holdAtLeast.isNegative()) {
			throw new IllegalArgumentException("The minimum hold of lock '" + this.name
					+ "' must not be negative, but was " + holdAtLeast);
		}
		if (holdAtLeast != null && holdAtLeast.compareTo(MAX_HOLD_AT_LEAST) > 0) {
			// Its end could not be computed as a deadline: it would never come
			throw new IllegalArgumentException("The minimum hold of lock '" + this.name + "' must be at most "
					+ MAX_HOLD_AT_LEAST.toDays() + " days, but was " + holdAtLeast);
		}
		Duration minimum = (holdAtLeast != null && !holdAtLeast.isZero()) ? holdAtLeast : null;
		return new LockDefinition(this.name, this.wait, minimum, this.whenBusy);
	}

	/**
	 * Return a copy that counts a busy lock as the caller handles it.
	 * @param whenBusy how the caller handles a busy lock
	 * @return the copy
	 */
	public LockDefinition withWhenBusy(WhenBusy whenBusy) {
		return new LockDefinition(this.name, this.wait, this.holdAtLeast,
				Objects.requireNonNull(whenBusy, "whenBusy must not be null"));
	}

	/**
	 * Return the name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return the wait.
	 * @return the wait, {@code null} for the registry's default wait
	 */
	public @Nullable Duration maxWait() {
		return this.wait;
	}

	/**
	 * Return the minimum hold.
	 * @return the minimum hold, {@code null} for none
	 */
	public @Nullable Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * Return how the caller handles a busy lock.
	 * @return how a busy lock is handled
	 */
	public WhenBusy whenBusy() {
		return this.whenBusy;
	}

	@Override
	public String toString() {
		return "LockDefinition[name=" + this.name + ", wait=" + this.wait + ", holdAtLeast=" + this.holdAtLeast
				+ ", whenBusy=" + this.whenBusy + "]";
	}

	/**
	 * How the caller handles a lock that another thread or participant held for the whole wait.
	 * The template throws {@link dev.zklock.core.LockAcquisitionException} in every case; this
	 * says what the caller does with it, so that the {@code zklock.acquire} observation counts
	 * it with the right {@code outcome}. A lock that was not acquired for another reason (no
	 * connection, no reply) is always an {@code error}.
	 */
	public enum WhenBusy {

		/** The exception reaches the caller's caller: {@code outcome="timeout"}. */
		THROW("timeout"),

		/** The work is skipped: {@code outcome="skipped"}, normal operation rather than a delay. */
		SKIP("skipped"),

		/** Other work runs instead: {@code outcome="fallback"}. */
		FALLBACK("fallback");

		private final String outcome;

		WhenBusy(String outcome) {
			this.outcome = outcome;
		}

		/**
		 * Return the {@code outcome} a busy lock is counted with.
		 * @return the outcome tag value
		 */
		public String outcome() {
			return this.outcome;
		}

	}

}
