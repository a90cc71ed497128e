package dev.zklock.autoconfigure.endpoint;

import java.io.IOException;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import dev.zklock.autoconfigure.web.ServletProblemWriter;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.handler.AbstractHandlerExceptionResolver;

/**
 * Spring MVC {@link org.springframework.web.servlet.HandlerExceptionResolver} that
 * answers a key the {@code zklocks} endpoint refused ({@link InvalidLockKeyException}), a
 * group name the {@code zkleaders} endpoint refused
 * ({@link InvalidLeaderGroupException}), or a request the {@code zkcluster} endpoint
 * refused ({@link InvalidViewRequestException}), with {@code 400 Bad Request} and an RFC
 * 9457 problem ({@code application/problem+json}) whose {@code detail} names the rule the
 * key or name broke, its control characters escaped. It logs one DEBUG line, without a
 * stack trace: a bad request is the client's error, not the server's.
 * <p>
 * Spring Boot turns the exception into a {@code ResponseStatusException} with status 400,
 * which Spring MVC would send as an error for Boot's error page; this resolver runs first
 * ({@linkplain Ordered#HIGHEST_PRECEDENCE highest precedence}) and handles nothing else.
 * Without a converter for {@code application/problem+json} it leaves the exception to
 * Spring MVC, which still answers 400.
 *
 * @author zk-lock
 */
public final class InvalidLockKeyProblemResolver extends AbstractHandlerExceptionResolver {

	// Wrappers are one deep (Boot's ResponseStatusException); the bound guards against
	// cause cycles
	private static final int MAX_CAUSE_DEPTH = 4;

	private final ServletProblemWriter problemWriter;

	/**
	 * Create a new instance, with the highest precedence.
	 * @param messageConverters the converters to write the problem with, asked at each
	 * refused key (cache them in the supplier if they are costly to get)
	 */
	public InvalidLockKeyProblemResolver(Supplier<? extends Iterable<HttpMessageConverter<?>>> messageConverters) {
		this.problemWriter = new ServletProblemWriter(messageConverters);
		setOrder(Ordered.HIGHEST_PRECEDENCE);
	}

	@Override
	protected @Nullable ModelAndView doResolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		InvalidEndpointRequestException invalid = find(ex);
		if (invalid == null || response.isCommitted()) {
			return null;
		}
		HttpMessageConverter<Object> converter = this.problemWriter.findConverter();
		if (converter == null) {
			return null;
		}
		if (this.logger.isDebugEnabled()) {
			this.logger.debug("Refused " + request.getMethod() + " of the " + endpoint(invalid) + " endpoint: "
					+ invalid.getReason());
		}
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, invalid.getReason());
		problem.setTitle(title(invalid));
		try {
			ServletProblemWriter.write(converter, response, HttpStatus.BAD_REQUEST, problem);
		}
		catch (IOException writeFailure) {
			// Most likely the client went away
			this.logger.debug("Failed to write the problem response: " + writeFailure);
		}
		return new ModelAndView();
	}

	private static String endpoint(InvalidEndpointRequestException invalid) {
		if (invalid instanceof InvalidViewRequestException) {
			return "zkcluster";
		}
		return (invalid instanceof InvalidLeaderGroupException) ? "zkleaders" : "zklocks";
	}

	private static String title(InvalidEndpointRequestException invalid) {
		if (invalid instanceof InvalidViewRequestException) {
			return "Invalid cluster view request";
		}
		return (invalid instanceof InvalidLeaderGroupException) ? "Invalid leader group" : "Invalid lock key";
	}

	private static @Nullable InvalidEndpointRequestException find(Throwable ex) {
		Throwable candidate = ex;
		for (int depth = 0; candidate != null && depth < MAX_CAUSE_DEPTH; depth++) {
			// Only zk-lock's own: other endpoints' bad requests are left to Spring MVC
			if (candidate instanceof InvalidLockKeyException || candidate instanceof InvalidLeaderGroupException
					|| candidate instanceof InvalidViewRequestException) {
				return (InvalidEndpointRequestException) candidate;
			}
			Throwable cause = candidate.getCause();
			candidate = (cause != candidate) ? cause : null;
		}
		return null;
	}

}
