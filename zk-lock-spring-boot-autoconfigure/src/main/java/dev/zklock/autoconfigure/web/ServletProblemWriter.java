package dev.zklock.autoconfigure.web;

import java.io.IOException;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Writes an RFC 9457 problem ({@code application/problem+json}) to a servlet response
 * with the application's HTTP message converters, whatever the request's {@code Accept}:
 * what the problem resolvers of Spring MVC ({@link LockAcquisitionProblemResolver}, and
 * the {@code zklocks} endpoint's) share.
 *
 * @author zk-lock
 */
public final class ServletProblemWriter {

	private final Supplier<? extends Iterable<HttpMessageConverter<?>>> messageConverters;

	/**
	 * Create a new instance.
	 * @param messageConverters the converters to write problems with, asked at each
	 * problem (cache them in the supplier if they are costly to get)
	 */
	public ServletProblemWriter(Supplier<? extends Iterable<HttpMessageConverter<?>>> messageConverters) {
		this.messageConverters = messageConverters;
	}

	/**
	 * Return the converters Spring MVC writes responses with, customizations included:
	 * those of the unique {@link RequestMappingHandlerAdapter}, else the defaults. They
	 * are looked up at the first problem, once, as the adapter need not exist before the
	 * resolver that asks for them.
	 * @param handlerAdapter the adapter
	 * @return the converters, looked up when first asked for
	 */
	public static Supplier<Iterable<HttpMessageConverter<?>>> mvcMessageConverters(
			ObjectProvider<RequestMappingHandlerAdapter> handlerAdapter) {
		return SingletonSupplier.of(() -> {
			RequestMappingHandlerAdapter adapter = handlerAdapter.getIfUnique();
			return (adapter != null) ? adapter.getMessageConverters()
					: HttpMessageConverters.forServer().registerDefaults().build();
		});
	}

	/**
	 * Return the first converter that writes a {@link ProblemDetail} as
	 * {@code application/problem+json}.
	 * @return the converter, or {@code null} if none can
	 */
	@SuppressWarnings("unchecked")
	public @Nullable HttpMessageConverter<Object> findConverter() {
		for (HttpMessageConverter<?> converter : this.messageConverters.get()) {
			if (converter.canWrite(ProblemDetail.class, MediaType.APPLICATION_PROBLEM_JSON)) {
				return (HttpMessageConverter<Object>) converter;
			}
		}
		return null;
	}

	/**
	 * Set the response's status and write the problem as its body.
	 * @param converter the converter, from {@link #findConverter()}
	 * @param response the response, not committed
	 * @param status the status
	 * @param problem the problem
	 * @throws IOException if the body cannot be written (most likely, the client went
	 * away)
	 */
	public static void write(HttpMessageConverter<Object> converter, HttpServletResponse response, HttpStatus status,
			ProblemDetail problem) throws IOException {
		response.setStatus(status.value());
		ServletServerHttpResponse outputMessage = new ServletServerHttpResponse(response);
		converter.write(problem, MediaType.APPLICATION_PROBLEM_JSON, outputMessage);
		outputMessage.flush();
	}

}
