package dev.zklock.core.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;

/**
 * Why one acquisition failed, carried inside the engine until it becomes a {@code false}
 * return or a {@link LockAcquisitionException}. A subclass is a failure that a recipe
 * handles itself before it can get that far.
 */
public class AcquireFailure extends Exception {

	private static final long serialVersionUID = 1L;

	private final LockAcquisitionException.Reason reason;

	private final String detail;

	private final boolean undecided;

	public AcquireFailure(LockAcquisitionException.Reason reason, String detail, @Nullable Throwable cause) {
		this(reason, detail, cause, false);
	}

	private AcquireFailure(LockAcquisitionException.Reason reason, String detail, @Nullable Throwable cause,
			boolean undecided) {
		super(detail, cause, false, false);
		this.reason = reason;
		this.detail = detail;
		this.undecided = undecided;
	}

	/**
	 * A wait that ran out while ZooKeeper's reply was awaited, never queued behind
	 * another holder: nobody was seen holding the lock. Reported {@code HELD_REMOTELY},
	 * since ZooKeeper could not tell in time whether someone does
	 * ({@link Deadline#ranOut}).
	 * @param detail what the wait was spent on
	 * @return the failure
	 */
	static AcquireFailure undecided(String detail) {
		return new AcquireFailure(LockAcquisitionException.Reason.HELD_REMOTELY, detail, null, true);
	}

	/**
	 * The exception for a caller that reports every failure as a
	 * {@link LockAcquisitionException} naming the key: an interrupt is one too
	 * ({@link LockAcquisitionException.Reason#INTERRUPTED INTERRUPTED}), and the thread's
	 * interrupt is set again.
	 * @param failure an {@link AcquireFailure} or an {@link InterruptedException}
	 * @param waited how long the acquisition waited
	 * @return the exception to throw
	 */
	public static LockAcquisitionException toException(Exception failure, String key, String path, Duration waited) {
		if (failure instanceof AcquireFailure acquireFailure) {
			return acquireFailure.toException(key, path, waited);
		}
		Thread.currentThread().interrupt();
		return new AcquireFailure(LockAcquisitionException.Reason.INTERRUPTED, "", failure).toException(key, path,
				waited);
	}

	public LockAcquisitionException.Reason reason() {
		return this.reason;
	}

	public String detail() {
		return this.detail;
	}

	/**
	 * Whether the wait ran out before ZooKeeper could tell whether another participant
	 * holds the lock: the attempt was never queued behind anyone.
	 * @return whether nobody was seen holding the lock
	 */
	public boolean isUndecided() {
		return this.undecided;
	}

	public LockAcquisitionException toException(String key, String path, Duration waited) {
		return new LockAcquisitionException(key, path, waited, this.reason, this.detail, getCause());
	}

}
