package dev.zklock.template;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How a {@link ZkLockTemplate} takes and holds a lock: its name in metrics, what is taken
 * (the exclusive lock, a side of a read/write lock, or a semaphore's permit), the wait, a
 * minimum hold, and the {@code outcome} a busy lock's failed wait is counted with (the
 * template throws it to the caller, who may skip the work or run other work). Immutable;
 * each {@code with...} method returns a copy.
 *
 * <pre class="code">
 * LockDefinition nightly = LockDefinition.named("nightly-report")
 *     .withWaitAtMost(Duration.ZERO)
 *     .withHoldAtLeast(Duration.ofSeconds(30))
 *     .withBusyOutcome(LockDefinition.BusyOutcome.SKIPPED);
 *
 * LockDefinition reading = LockDefinition.named("catalog-read").withMode(LockMode.READ);
 *
 * LockDefinition rendering = LockDefinition.named("pdf-render").withPermits(4);
 * </pre>
 *
 * <p>
 * A read or write side belongs to the thread that took it: such a definition cannot have
 * a minimum hold, and the template runs it only on the calling thread
 * ({@link ZkLockTemplate#execute(LockDefinition, java.util.Collection, LockedTask)
 * execute}). A permit is a lease any thread may release, on one key, and is not
 * reentrant.
 *
 * <h2>The wait</h2> How long a caller waits for a lock, at most, is one idea with one
 * name, {@code waitAtMost}, from the annotation to the engine; only its default and its
 * form in milliseconds are named apart:
 * <ul>
 * <li>annotation: {@code @DistributedLock(waitAtMost = "2s")} (and
 * {@code @DistributedSemaphore}), or the same in milliseconds, {@code waitMs = 2000};
 * unset, the default;</li>
 * <li>definition: {@link #withWaitAtMost(Duration)} and {@link #waitAtMost()} here, and
 * the {@code waitAtMost} parameter of {@link ZkLockTemplate}'s shorter methods;
 * {@code null}, the default;</li>
 * <li>property: the default, {@code zklock.lock.default-wait}, bound to
 * {@code ZkLockProperties.Lock.defaultWait} and given to the registry as
 * {@link dev.zklock.core.ZkLockOptions#defaultWait()};</li>
 * <li>engine: the {@code Duration} given to {@link dev.zklock.core.ZkLock#acquire} or
 * {@link dev.zklock.core.ZkSemaphore#acquire}, which the engine turns, once, into a
 * {@code deadline}: the instant at which the wait ends, on the {@link System#nanoTime()}
 * clock. A deadline is another idea (an instant, not a duration) and keeps its name:
 * every attempt, retry and hand-off of one call counts down to the same one.</li>
 * </ul>
 *
 * @author zk-lock
 */
public final class LockDefinition {

	/**
	 * The longest minimum hold: far beyond any schedule, and within a nanosecond
	 * deadline.
	 */
	static final Duration MAX_HOLD_AT_LEAST = Duration.ofDays(36_500);

	private final String name;

	private final @Nullable Duration waitAtMost;

	private final @Nullable Duration holdAtLeast;

	private final BusyOutcome busyOutcome;

	private final LockMode mode;

	private final int permits;

	private final boolean revocable;

	private final boolean stopOnLost;

	private LockDefinition(String name, @Nullable Duration waitAtMost, @Nullable Duration holdAtLeast,
			BusyOutcome busyOutcome, LockMode mode, int permits, boolean revocable, boolean stopOnLost) {
		this.name = name;
		this.waitAtMost = waitAtMost;
		this.holdAtLeast = holdAtLeast;
		this.busyOutcome = busyOutcome;
		this.mode = mode;
		this.permits = permits;
		this.revocable = revocable;
		this.stopOnLost = stopOnLost;
	}

	/**
	 * Return a definition with a name, the registry's default wait, no minimum hold, and
	 * a busy lock counted as a {@link BusyOutcome#TIMEOUT timeout}.
	 * @param name the low-cardinality name of the lock, for metrics and logs: a purpose,
	 * never the key
	 * @return the definition
	 */
	public static LockDefinition named(String name) {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank()) {
			throw new IllegalArgumentException("A lock name must not be blank");
		}
		return new LockDefinition(name, null, null, BusyOutcome.TIMEOUT, LockMode.EXCLUSIVE, 0, false, false);
	}

	/**
	 * A definition with a name and a wait only, as the shorter template methods take
	 * them, in one step: those run on every call.
	 */
	static LockDefinition of(String name, @Nullable Duration waitAtMost) {
		LockDefinition named = named(name);
		return (waitAtMost != null) ? named.withWaitAtMost(waitAtMost) : named;
	}

	/**
	 * Return a copy with another wait: how long to wait for the lock, at most.
	 * @param waitAtMost the longest wait; {@link Duration#ZERO} makes one attempt;
	 * {@code null} uses the registry's default wait
	 * @return the copy
	 * @throws IllegalArgumentException if the wait is negative
	 */
	public LockDefinition withWaitAtMost(@Nullable Duration waitAtMost) {
		if (waitAtMost != null && waitAtMost.isNegative()) {
			throw new IllegalArgumentException(
					"The wait of lock '" + this.name + "' must not be negative, but was " + waitAtMost);
		}
		return new LockDefinition(this.name, waitAtMost, this.holdAtLeast, this.busyOutcome, this.mode, this.permits,
				this.revocable, this.stopOnLost);
	}

	/**
	 * Return a copy with a minimum hold: when the work ends sooner, the lock stays held
	 * until that long after it was acquired, then the template releases it. Such a lock
	 * is not reentrant: a thread that holds one of its keys already finds it busy. Not
	 * for a read or write side, which the thread that took it must give back itself.
	 * @param holdAtLeast the minimum hold, {@code null} or zero for none
	 * @return the copy
	 * @throws IllegalArgumentException if the duration is negative or over 100 years, or
	 * the definition takes a read or write side
	 */
	public LockDefinition withHoldAtLeast(@Nullable Duration holdAtLeast) {
		if (holdAtLeast != null && holdAtLeast.isNegative()) {
			throw new IllegalArgumentException(
					"The minimum hold of lock '" + this.name + "' must not be negative, but was " + holdAtLeast);
		}
		if (holdAtLeast != null && holdAtLeast.compareTo(MAX_HOLD_AT_LEAST) > 0) {
			// Its end could not be computed as a deadline: it would never come
			throw new IllegalArgumentException("The minimum hold of lock '" + this.name + "' must be at most "
					+ MAX_HOLD_AT_LEAST.toDays() + " days, but was " + holdAtLeast);
		}
		Duration minimum = (holdAtLeast != null && !holdAtLeast.isZero()) ? holdAtLeast : null;
		if (minimum != null && this.mode != LockMode.EXCLUSIVE) {
			throw threadOwnedSide(this.name, this.mode);
		}
		return new LockDefinition(this.name, this.waitAtMost, minimum, this.busyOutcome, this.mode, this.permits,
				this.revocable, this.stopOnLost);
	}

	/**
	 * Return a copy that takes another lock on each key: the exclusive lock, or the read
	 * or write side of the key's read/write lock. The two are different recipes on the
	 * same ZooKeeper path and do not exclude each other: lock a key one way everywhere.
	 * @param mode the lock to take
	 * @return the copy
	 * @throws IllegalArgumentException if the definition has a minimum hold or takes a
	 * permit and the mode is not {@link LockMode#EXCLUSIVE}
	 */
	public LockDefinition withMode(LockMode mode) {
		Objects.requireNonNull(mode, "mode must not be null");
		if (mode != LockMode.EXCLUSIVE && this.holdAtLeast != null) {
			throw threadOwnedSide(this.name, mode);
		}
		if (mode != LockMode.EXCLUSIVE && isSemaphore()) {
			throw new IllegalArgumentException("Lock '" + this.name + "' takes a semaphore permit and cannot also take "
					+ "the " + mode + " side of a read/write lock");
		}
		return new LockDefinition(this.name, this.waitAtMost, this.holdAtLeast, this.busyOutcome, mode, this.permits,
				this.revocable, this.stopOnLost);
	}

	/**
	 * Return a copy that takes one permit of the key's semaphore instead of a lock: at
	 * most {@code permits} holders at once, across JVMs. Every participant must use the
	 * same number of permits for a key. A permit is not reentrant, and is taken on one
	 * key only.
	 * @param permits the semaphore's number of permits, at least 1
	 * @return the copy
	 * @throws IllegalArgumentException if permits is below 1, or the definition takes a
	 * read or write side
	 */
	public LockDefinition withPermits(int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException(
					"The semaphore '" + this.name + "' needs at least 1 permit, but was " + "given " + permits);
		}
		if (this.mode != LockMode.EXCLUSIVE) {
			throw new IllegalArgumentException("Lock '" + this.name + "' takes the " + this.mode
					+ " side of a read/write lock and cannot also take a semaphore permit");
		}
		if (this.revocable) {
			throw new IllegalArgumentException("Lock '" + this.name + "' is revocable and cannot take a semaphore "
					+ "permit: permits are not asked back");
		}
		return new LockDefinition(this.name, this.waitAtMost, this.holdAtLeast, this.busyOutcome, this.mode, permits,
				this.revocable, this.stopOnLost);
	}

	/**
	 * Return a copy whose hold is revocable: a revocation request (Curator's
	 * {@code Revoker.attemptRevoke} on this JVM's node, or
	 * {@code ZkLockRegistry.requestRevocation}) interrupts the thread running the work of
	 * {@link ZkLockTemplate#execute(LockDefinition, java.util.Collection, LockedTask)},
	 * once, while the work runs, and {@code LockContext.isRevocationRequested()} turns
	 * true. Work that outlives the call has no thread to interrupt and ignores requests.
	 * @param revocable whether a request interrupts the work
	 * @return the copy
	 * @throws IllegalArgumentException if the definition takes a semaphore permit
	 */
	public LockDefinition withRevocable(boolean revocable) {
		if (revocable && isSemaphore()) {
			throw new IllegalArgumentException(
					"The semaphore '" + this.name + "' cannot be revocable: permits are " + "not asked back");
		}
		return new LockDefinition(this.name, this.waitAtMost, this.holdAtLeast, this.busyOutcome, this.mode,
				this.permits, revocable, this.stopOnLost);
	}

	/**
	 * Return whether a revocation request interrupts the work.
	 * @return whether revocable
	 */
	public boolean revocable() {
		return this.revocable;
	}

	/**
	 * Return a copy that stops the work when its lease is lost while it runs, or lets it
	 * run on (the default): what {@code onLost = OnLost.INTERRUPT} or {@code CONTINUE} of
	 * {@code @DistributedLock} declares.
	 * @param stopOnLost whether to stop the work: interrupt its thread, complete its
	 * stage or cancel its stream with a {@code LockLostException}
	 * @return the new definition
	 */
	public LockDefinition withStopOnLost(boolean stopOnLost) {
		return new LockDefinition(this.name, this.waitAtMost, this.holdAtLeast, this.busyOutcome, this.mode,
				this.permits, this.revocable, stopOnLost);
	}

	/**
	 * Return whether the work is stopped when its lease is lost while it runs.
	 * @return {@code false} unless set
	 */
	public boolean stopsOnLost() {
		return this.stopOnLost;
	}

	private static IllegalArgumentException threadOwnedSide(String name, LockMode mode) {
		return new IllegalArgumentException("Lock '" + name + "' takes the " + mode + " side of a read/write lock, "
				+ "which belongs to the thread that took it, and cannot be held at least a minimum time after its work "
				+ "ends");
	}

	/**
	 * Return a copy that counts a busy lock with another {@code outcome}: the one that
	 * says what the caller does with the {@link dev.zklock.core.LockAcquisitionException}
	 * the template throws. Only the count changes: the template throws whatever the
	 * outcome, and never skips the work or runs other work itself.
	 * @param busyOutcome the outcome a busy lock is counted with
	 * @return the copy
	 */
	public LockDefinition withBusyOutcome(BusyOutcome busyOutcome) {
		return new LockDefinition(this.name, this.waitAtMost, this.holdAtLeast,
				Objects.requireNonNull(busyOutcome, "busyOutcome must not be null"), this.mode, this.permits,
				this.revocable, this.stopOnLost);
	}

	/**
	 * Return the name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return how long to wait for the lock, at most.
	 * @return the wait, {@code null} for the registry's default wait
	 */
	public @Nullable Duration waitAtMost() {
		return this.waitAtMost;
	}

	/**
	 * Return the minimum hold.
	 * @return the minimum hold, {@code null} for none
	 */
	public @Nullable Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * Return the {@code outcome} a busy lock is counted with.
	 * @return the outcome, {@link BusyOutcome#TIMEOUT} unless set
	 */
	public BusyOutcome busyOutcome() {
		return this.busyOutcome;
	}

	/**
	 * Return which lock is taken on each key, when the definition takes no semaphore
	 * permit.
	 * @return the mode, {@link LockMode#EXCLUSIVE} unless set
	 */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Return the number of permits of the semaphore whose permit is taken.
	 * @return the permits, 0 if the definition takes a lock rather than a permit
	 */
	public int permits() {
		return this.permits;
	}

	/**
	 * Whether the definition takes a semaphore permit rather than a lock: the one place
	 * that says what {@code permits > 0} means.
	 */
	boolean isSemaphore() {
		return this.permits > 0;
	}

	/**
	 * The {@code kind} tag of the observations: {@code exclusive}, {@code read},
	 * {@code write} or {@code semaphore}.
	 */
	String kind() {
		return isSemaphore() ? "semaphore" : this.mode.name().toLowerCase(Locale.ROOT);
	}

	@Override
	public String toString() {
		return "LockDefinition[name=" + this.name + ", "
				+ (isSemaphore() ? "permits=" + this.permits : "mode=" + this.mode) + ", wait=" + this.waitAtMost
				+ ", holdAtLeast=" + this.holdAtLeast + ", busyOutcome=" + this.busyOutcome
				+ (this.revocable ? ", revocable" : "") + (this.stopOnLost ? ", stopOnLost" : "") + "]";
	}

	/**
	 * The {@code outcome} of the {@code zklock.acquire} observation for a lock that
	 * another thread or participant held for the whole wait: what the caller does with
	 * the {@link dev.zklock.core.LockAcquisitionException} the template throws. The
	 * template throws it whatever the outcome; a caller that skips the work or runs other
	 * work catches it and says so here, so that a normal skip is not counted as a delay.
	 * A lock that was not acquired for another reason is an {@code error}, but for
	 * {@link #SKIPPED} while ZooKeeper is unavailable (no connection, no reply):
	 * {@code skipped_unavailable}.
	 * <p>
	 * {@code @DistributedLock} sets it from {@code onLocked} and {@code fallback}, and
	 * does the skipping or the fallback itself.
	 */
	public enum BusyOutcome {

		/**
		 * The exception reaches the caller's caller: {@code outcome="timeout"}. The
		 * default.
		 */
		TIMEOUT("timeout"),

		/**
		 * The caller skips the work: {@code outcome="skipped"}, normal operation rather
		 * than a delay. Also while ZooKeeper is unavailable (not connected, or no reply):
		 * {@code outcome="skipped_unavailable"}, as the annotation's
		 * {@code OnLocked.SKIP} does; a caller of the template that skips should skip
		 * then too.
		 */
		SKIPPED("skipped"),

		/** The caller runs other work instead: {@code outcome="fallback"}. */
		FALLBACK("fallback");

		private final String outcome;

		BusyOutcome(String outcome) {
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
