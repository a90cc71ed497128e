package dev.zklock.autoconfigure.web;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;

import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

/**
 * WebFlux {@link WebExceptionHandler} that writes an RFC 9457 problem
 * ({@code application/problem+json}) for a {@link LockAcquisitionException}, itself or as
 * the cause of another exception: {@code 409 Conflict} with {@code Retry-After} for a
 * busy lock, {@code 503 Service Unavailable} with {@code Retry-After} when ZooKeeper
 * cannot be used, {@code 500} when ZooKeeper refused the operation; and for a
 * {@link LockLostException} (the lock was lost while the work ran), {@code 500} with a
 * problem type of its own, {@code https://zk-lock.dev/problems/lock-lost}. By default the
 * body names neither the lock key, nor its ZooKeeper path, nor the holders.
 * <p>
 * A {@code WebExceptionHandler} sees only what the {@code DispatcherHandler} left
 * unhandled, so the application's {@code @ExceptionHandler} methods, in the controller or
 * in a {@code @ControllerAdvice} of any order, win. Its {@linkplain #DEFAULT_ORDER
 * default order}, {@value #DEFAULT_ORDER}, puts it before Spring Boot's
 * {@code ErrorWebExceptionHandler} (-1), which would otherwise answer 500.
 * <p>
 * The problem is written with the first of the application's codecs that writes
 * {@code application/problem+json}, whatever the request's {@code Accept}; without one,
 * only the status and {@code Retry-After} are sent.
 *
 * @author zk-lock
 */
public final class LockAcquisitionProblemWebExceptionHandler implements WebExceptionHandler, Ordered {

	/**
	 * The default order: just before Spring Boot's {@code ErrorWebExceptionHandler}.
	 */
	public static final int DEFAULT_ORDER = -2;

	private static final ResolvableType PROBLEM_TYPE = ResolvableType.forClass(ProblemDetail.class);

	private final LockProblems problems;

	private final @Nullable HttpMessageWriter<ProblemDetail> writer;

	private int order = DEFAULT_ORDER;

	/**
	 * Create a new instance, with the {@linkplain #DEFAULT_ORDER default order}.
	 * @param exposeLockDetails whether the problem names the key, the reason, the time
	 * waited and the exception's message
	 * @param retryAfter the {@code Retry-After} of 409 and 503 responses, in seconds
	 * rounded up; zero for none
	 * @param writers the writers to write the problem with, typically those of the
	 * application's {@code ServerCodecConfigurer}
	 */
	public LockAcquisitionProblemWebExceptionHandler(boolean exposeLockDetails, Duration retryAfter,
			List<HttpMessageWriter<?>> writers) {
		this.problems = new LockProblems(exposeLockDetails, retryAfter);
		this.writer = findWriter(writers);
	}

	@SuppressWarnings("unchecked")
	private static @Nullable HttpMessageWriter<ProblemDetail> findWriter(List<HttpMessageWriter<?>> writers) {
		for (HttpMessageWriter<?> writer : writers) {
			if (writer.canWrite(PROBLEM_TYPE, MediaType.APPLICATION_PROBLEM_JSON)) {
				return (HttpMessageWriter<ProblemDetail>) writer;
			}
		}
		return null;
	}

	/**
	 * Set the order of this handler among the {@code WebExceptionHandler}s.
	 * @param order the order
	 */
	public void setOrder(int order) {
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		ServerHttpResponse response = exchange.getResponse();
		if (response.isCommitted()) {
			return Mono.error(ex);
		}
		LockProblems.Response answer = this.problems.response(ex, exchange.getRequest().getPath().value());
		if (answer == null) {
			return Mono.error(ex);
		}
		response.setStatusCode(answer.status());
		if (answer.retryAfter() != null) {
			response.getHeaders().set(HttpHeaders.RETRY_AFTER, answer.retryAfter());
		}
		if (this.writer == null) {
			return response.setComplete();
		}
		return this.writer.write(Mono.just(answer.problem()), PROBLEM_TYPE, MediaType.APPLICATION_PROBLEM_JSON,
				response, Hints.from(Hints.LOG_PREFIX_HINT, exchange.getLogPrefix()));
	}

}
