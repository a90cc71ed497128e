package dev.zklock.autoconfigure.web;

import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.handler.AbstractHandlerExceptionResolver;

/**
 * Spring MVC {@link org.springframework.web.servlet.HandlerExceptionResolver} that writes
 * an RFC 9457 problem ({@code application/problem+json}) for a
 * {@link LockAcquisitionException}, itself or as the cause of another exception:
 * {@code 409 Conflict} with {@code Retry-After} for a busy lock,
 * {@code 503 Service Unavailable} with {@code Retry-After} when ZooKeeper cannot be used,
 * {@code 500} when ZooKeeper refused the operation; and for a {@link LockLostException}
 * (the lock was lost while the work ran), {@code 500} with a problem type of its own,
 * {@code https://zk-lock.dev/problems/lock-lost}. By default the body names neither the
 * lock key, nor its ZooKeeper path, nor the holders.
 * <p>
 * It has the {@linkplain Ordered#LOWEST_PRECEDENCE lowest precedence}, so it runs after
 * Spring MVC's {@code HandlerExceptionResolverComposite} (order 0), whose
 * {@code ExceptionHandlerExceptionResolver} runs the application's
 * {@code @ExceptionHandler} methods: any of them that handles the exception, in the
 * controller or in a {@code @ControllerAdvice} of any order, even one for
 * {@code Exception}, wins. A {@code @ControllerAdvice} of ours could not promise that, as
 * it would compete with the application's advice by order.
 * <p>
 * The problem is written with the application's HTTP message converters, those of its
 * {@code RequestMappingHandlerAdapter}, whatever the request's {@code Accept}. Without a
 * converter for {@code application/problem+json} the status is sent as an error, for the
 * servlet container's error page (Spring Boot's error controller) to render.
 *
 * @author zk-lock
 */
public final class LockAcquisitionProblemResolver extends AbstractHandlerExceptionResolver {

	private final LockProblems problems;

	private final ServletProblemWriter problemWriter;

	/**
	 * Create a new instance, with the lowest precedence.
	 * @param exposeLockDetails whether the problem names the key, the reason, the time
	 * waited and the exception's message
	 * @param retryAfter the {@code Retry-After} of 409 and 503 responses, in seconds
	 * rounded up; zero for none
	 * @param messageConverters the converters to write the problem with, asked at each
	 * exception (cache them in the supplier if they are costly to get)
	 */
	public LockAcquisitionProblemResolver(boolean exposeLockDetails, Duration retryAfter,
			Supplier<? extends Iterable<HttpMessageConverter<?>>> messageConverters) {
		this.problems = new LockProblems(exposeLockDetails, retryAfter);
		this.problemWriter = new ServletProblemWriter(messageConverters);
		setOrder(Ordered.LOWEST_PRECEDENCE);
	}

	@Override
	protected @Nullable ModelAndView doResolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		if (response.isCommitted()) {
			return null;
		}
		LockProblems.Response answer = this.problems.response(ex, request.getRequestURI());
		if (answer == null) {
			return null;
		}
		HttpStatus status = answer.status();
		if (answer.retryAfter() != null) {
			response.setHeader(HttpHeaders.RETRY_AFTER, answer.retryAfter());
		}
		ProblemDetail problem = answer.problem();
		try {
			HttpMessageConverter<Object> converter = this.problemWriter.findConverter();
			if (converter == null) {
				response.sendError(status.value());
			}
			else {
				ServletProblemWriter.write(converter, response, status, problem);
			}
		}
		catch (IOException writeFailure) {
			// Most likely the client went away; the exception is ours to report, not the
			// write
			this.logger.debug("Failed to write the problem response for " + ex, writeFailure);
		}
		return new ModelAndView();
	}

}
