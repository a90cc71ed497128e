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

	public AcquireFailure(LockAcquisitionException.Reason reason, String detail, @Nullable Throwable cause) {
		super(detail, cause, false, false);
		this.reason = reason;
		this.detail = detail;
	}

	public LockAcquisitionException.Reason reason() {
		return this.reason;
	}

	public LockAcquisitionException toException(String key, String path, Duration waited) {
		return new LockAcquisitionException(key, path, waited, this.reason, this.detail, getCause());
	}

}
