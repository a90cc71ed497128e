package dev.zklock.autoconfigure.web;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockAcquisitionException.Reason;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * What a {@link LockAcquisitionException} becomes over HTTP, shared by the Spring MVC and
 * the WebFlux handler:
 * <ul>
 * <li>{@link Reason#HELD_LOCALLY HELD_LOCALLY}, {@link Reason#HELD_REMOTELY
 * HELD_REMOTELY}: {@code 409 Conflict} with {@code Retry-After}. The request was valid;
 * the resource is busy with another request. A 4xx keeps lock contention out of
 * server-error alerts and SLOs, and is what clients read as "retry later with the same
 * request".</li>
 * <li>{@link Reason#NOT_CONNECTED NOT_CONNECTED}, {@link Reason#NO_REPLY NO_REPLY},
 * {@link Reason#CLOSED CLOSED}, {@link Reason#INTERRUPTED INTERRUPTED}:
 * {@code 503 Service Unavailable} with {@code Retry-After}. The server cannot serve the
 * request right now (ZooKeeper unreachable or silent, the application shutting
 * down).</li>
 * <li>{@link Reason#ERROR ERROR}: {@code 500}, without {@code Retry-After}. ZooKeeper
 * refused the operation (an ACL, say); retrying will not help.</li>
 * </ul>
 * The body names neither the key, nor the ZooKeeper path, nor the holders unless
 * {@code exposeLockDetails} is set: they are internals, and keys are often built from
 * data of other requests.
 *
 * @author zk-lock
 */
final class LockProblems {

	// Wrappers seen in practice are one or two deep; the bound guards against cause
	// cycles
	private static final int MAX_CAUSE_DEPTH = 16;

	private final boolean exposeLockDetails;

	private final @Nullable String retryAfter;

	LockProblems(boolean exposeLockDetails, Duration retryAfter) {
		this.exposeLockDetails = exposeLockDetails;
		this.retryAfter = retryAfterSeconds(retryAfter);
	}

	/**
	 * Return the {@link LockAcquisitionException} that is the given exception or one of
	 * its causes, as with an {@code @ExceptionHandler}, which also matches causes: an
	 * async controller method's {@code CompletionException}, say, or a
	 * {@code ServletException}.
	 * @param ex the exception that reached the handler
	 * @return the lock exception, or {@code null} if there is none
	 */
	static @Nullable LockAcquisitionException find(@Nullable Throwable ex) {
		Throwable candidate = ex;
		for (int depth = 0; candidate != null && depth < MAX_CAUSE_DEPTH; depth++) {
			if (candidate instanceof LockAcquisitionException lockException) {
				return lockException;
			}
			Throwable cause = candidate.getCause();
			candidate = (cause != candidate) ? cause : null;
		}
		return null;
	}

	/**
	 * Return the status for a reason.
	 * @param reason why the lock was not acquired
	 * @return 409, 503 or 500
	 */
	static HttpStatus status(Reason reason) {
		return switch (reason) {
			case HELD_LOCALLY, HELD_REMOTELY -> HttpStatus.CONFLICT;
			case NOT_CONNECTED, NO_REPLY, CLOSED, INTERRUPTED -> HttpStatus.SERVICE_UNAVAILABLE;
			case ERROR -> HttpStatus.INTERNAL_SERVER_ERROR;
		};
	}

	/**
	 * Return the {@code Retry-After} value for a reason.
	 * @param reason why the lock was not acquired
	 * @return whole seconds, or {@code null} for no header
	 */
	@Nullable String retryAfter(Reason reason) {
		return (status(reason) != HttpStatus.INTERNAL_SERVER_ERROR) ? this.retryAfter : null;
	}

	/**
	 * Return the problem for an exception.
	 * @param ex the lock exception
	 * @param path the request path, as the problem's instance, or {@code null}
	 * @return the problem
	 */
	ProblemDetail problem(LockAcquisitionException ex, @Nullable String path) {
		Reason reason = ex.getReason();
		HttpStatus status = status(reason);
		// RFC 9457: with the default type about:blank, the title is the status phrase
		// ("Conflict")
		ProblemDetail problem = ProblemDetail.forStatus(status);
		if (this.exposeLockDetails) {
			problem.setDetail(ex.getMessage());
			problem.setProperty("lockKey", ex.getKey());
			problem.setProperty("reason", reason.name());
			problem.setProperty("waitedMs", ex.getWaited().toMillis());
		}
		else {
			problem.setDetail(switch (status) {
				case CONFLICT -> "Another request is working on this resource; try again shortly.";
				case SERVICE_UNAVAILABLE -> "The service cannot take this request right now; try again shortly.";
				default -> "The request could not be processed.";
			});
		}
		URI instance = instance(path);
		if (instance != null) {
			problem.setInstance(instance);
		}
		return problem;
	}

	// As Spring does for the ProblemDetail an @ExceptionHandler returns
	private static @Nullable URI instance(@Nullable String path) {
		if (path == null || path.isEmpty()) {
			return null;
		}
		try {
			return URI.create(path);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static @Nullable String retryAfterSeconds(Duration retryAfter) {
		if (retryAfter.isZero() || retryAfter.isNegative()) {
			return null;
		}
		long seconds = retryAfter.getSeconds() + ((retryAfter.getNano() > 0) ? 1 : 0);
		return Long.toString(seconds);
	}

}
