package dev.zklock.autoconfigure.web;

import java.net.URI;
import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedWriteRefusedException;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.core.LockLostException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.util.ClassUtils;

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
 * A {@link LockLostException} (the lock was lost while the request's work ran) is a
 * problem of its own type, {@value #LOCK_LOST_TYPE}, with {@code 500} and no
 * {@code Retry-After}: the server failed mid-request and the outcome of the work is
 * unknown (part of it may have been written), so neither a busy resource (409) nor a
 * temporary refusal before any work (503, which clients and proxies retry blindly) is
 * true. It is logged once, at WARN, with the key, the fencing token and how the lease was
 * lost. Its detail says what became of the work: it ran to its end, it was stopped, or a
 * call did not run.
 * <p>
 * A stale write refused, a {@code FencingTokenRejectedException} (JDBC fencing) or a
 * {@link GuardedWriteRefusedException} (a guarded ZooKeeper write), is {@code 409
 * Conflict} with a problem type of its own and no {@code Retry-After}: nothing of the
 * refused write was applied (the transaction it was thrown in rolled back), and the data
 * now belongs to a later holder of the lock, which is a conflict with the resource's
 * state, as an optimistic-locking failure is; a new request reads the data again under a
 * new lock. It is logged once, at WARN.
 * <p>
 * The body names neither the key, nor the ZooKeeper path, nor the holders unless
 * {@code exposeLockDetails} is set: they are internals, and keys are often built from
 * data of other requests. Even then it never names the connection to ZooKeeper (the
 * connect string): a lock not acquired for want of ZooKeeper says why in words only.
 *
 * @author zk-lock
 */
final class LockProblems {

	/** The {@code type} of the problem for a lock lost while the request's work ran. */
	static final String LOCK_LOST_TYPE = "https://zk-lock.dev/problems/lock-lost";

	/** The {@code type} of the problem for a guarded ZooKeeper write that was refused. */
	static final String GUARDED_WRITE_REFUSED_TYPE = "https://zk-lock.dev/problems/guarded-write-refused";

	// FencingTokenRejectedException is a DataAccessException: without spring-tx, nothing
	// can throw it, and its class cannot be loaded
	private static final boolean FENCED_WRITES_PRESENT = ClassUtils
		.isPresent("org.springframework.dao.NonTransientDataAccessException", LockProblems.class.getClassLoader());

	private static final Log logger = LogFactory.getLog(LockProblems.class);

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
	 * Return the {@link LockAcquisitionException} or {@link LockLostException} that is
	 * the given exception or one of its causes, the nearest, as with an
	 * {@code @ExceptionHandler}, which also matches causes: an async controller method's
	 * {@code CompletionException}, say, or a {@code ServletException}.
	 * @param ex the exception that reached the handler
	 * @return the lock exception, or {@code null} if there is none
	 */
	static @Nullable RuntimeException find(@Nullable Throwable ex) {
		Throwable candidate = ex;
		for (int depth = 0; candidate != null && depth < MAX_CAUSE_DEPTH; depth++) {
			if (candidate instanceof LockAcquisitionException || candidate instanceof LockLostException
					|| (FENCED_WRITES_PRESENT && FencedWriteProblems.isRefusal(candidate))) {
				return (RuntimeException) candidate;
			}
			Throwable cause = candidate.getCause();
			candidate = (cause != candidate) ? cause : null;
		}
		return null;
	}

	/**
	 * Return the problem for the lock exception that is the given exception or one of its
	 * causes, the nearest first, and log a lost lock.
	 * @param ex the exception that reached the handler
	 * @param path the request path, as the problem's instance, or {@code null}
	 * @return the problem, or {@code null} if no lock exception is there
	 */
	@Nullable Response response(Throwable ex, @Nullable String path) {
		RuntimeException found = find(ex);
		if (found instanceof LockAcquisitionException lockException) {
			return new Response(status(lockException.getReason()), retryAfter(lockException.getReason()),
					problem(lockException, path));
		}
		if (found instanceof GuardedWriteRefusedException refused) {
			logger.warn("Request " + path + " had a stale write refused: " + refused.getMessage());
			return new Response(HttpStatus.CONFLICT, null, problem(refused, path));
		}
		if (found instanceof LockLostException lost) {
			logger.warn("Request " + path + " failed: " + lost.getMessage());
			return new Response(HttpStatus.INTERNAL_SERVER_ERROR, null, problem(lost, path));
		}
		if (found != null) {
			logger.warn("Request " + path + " had a stale write refused: " + found.getMessage());
			return new Response(HttpStatus.CONFLICT, null,
					withInstance(FencedWriteProblems.problem(found, this.exposeLockDetails), path));
		}
		return null;
	}

	/**
	 * Return the problem for a guarded ZooKeeper write refused because the lock was lost
	 * before it: {@code 409}, nothing was written.
	 * @param ex the refusal
	 * @param path the request path, as the problem's instance, or {@code null}
	 * @return the problem
	 */
	ProblemDetail problem(GuardedWriteRefusedException ex, @Nullable String path) {
		return lockProblem(HttpStatus.CONFLICT, GUARDED_WRITE_REFUSED_TYPE, "Guarded write refused", ex,
				"The lock was lost before the write; nothing of it was written.", path);
	}

	/**
	 * Return the problem for a lock lost while the request's work ran.
	 * @param ex the loss
	 * @param path the request path, as the problem's instance, or {@code null}
	 * @return the problem
	 */
	ProblemDetail problem(LockLostException ex, @Nullable String path) {
		ProblemDetail problem = lockProblem(HttpStatus.INTERNAL_SERVER_ERROR, LOCK_LOST_TYPE, "Lock lost", ex,
				switch (ex.getWorkOutcome()) {
					case COMPLETED -> "The request's work ran to its end, but its lock was lost while it ran: "
							+ "another request may have worked on the same resource at the same time.";
					case STOPPED ->
						"The request's work was stopped when its lock was lost; part of it may have been done.";
					case NOT_STARTED -> "A call of the request found its lock lost and did not run; "
							+ "the work before it may have been done.";
				}, path);
		if (this.exposeLockDetails) {
			problem.setProperty("workOutcome", ex.getWorkOutcome().name());
		}
		return problem;
	}

	/**
	 * A problem of its own type about a held lock: the exception's message, key and token
	 * only where lock details are exposed, else a detail that names none of them.
	 */
	private ProblemDetail lockProblem(HttpStatus status, String type, String title, LockLostException ex,
			String hiddenDetail, @Nullable String path) {
		ProblemDetail problem = ProblemDetail.forStatus(status);
		problem.setType(URI.create(type));
		problem.setTitle(title);
		if (this.exposeLockDetails) {
			problem.setDetail(ex.getMessage());
			problem.setProperty("lockKey", ex.getKey());
			problem.setProperty("fencingToken", ex.getFencingToken());
		}
		else {
			problem.setDetail(hiddenDetail);
		}
		return withInstance(problem, path);
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
			problem.setDetail(exposedDetail(ex));
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
		return withInstance(problem, path);
	}

	/**
	 * The detail exposed for a lock not acquired: for a busy lock, the exception's
	 * message, which names the key, its ZooKeeper path and the holder (its node and
	 * owner, or the name of the holding thread of this JVM); for the other reasons, the
	 * key, the path, the time waited and the reason only, since their detail describes
	 * the connection to ZooKeeper (its connect string, which may name hosts, ports and a
	 * chroot) and that is never a client's to see.
	 */
	private static String exposedDetail(LockAcquisitionException ex) {
		if (ex.getReason().isBusy()) {
			return String.valueOf(ex.getMessage());
		}
		return "Could not acquire lock '" + ex.getKey() + "' (ZooKeeper path " + ex.getPath() + ") after waiting "
				+ ex.getWaited().toMillis() + " ms: " + ex.getReason().description();
	}

	private static ProblemDetail withInstance(ProblemDetail problem, @Nullable String path) {
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

	/**
	 * What to answer: the status, the {@code Retry-After} value if any, and the body.
	 */
	record Response(HttpStatus status, @Nullable String retryAfter, ProblemDetail problem) {
	}

}
