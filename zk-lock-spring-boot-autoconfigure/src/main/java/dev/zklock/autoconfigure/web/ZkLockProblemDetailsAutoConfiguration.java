package dev.zklock.autoconfigure.web;

import java.time.Duration;
import java.util.List;

import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.core.LockAcquisitionException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} that turns a {@link LockAcquisitionException} thrown out of a
 * controller into an RFC 9457 problem response, unless the application handles it with an
 * {@code @ExceptionHandler} of its own:
 * <ul>
 * <li>busy lock ({@code HELD_LOCALLY}, {@code HELD_REMOTELY}): {@code 409 Conflict} with
 * {@code Retry-After}; the request was valid, the resource is busy with another one, and
 * a 4xx keeps lock contention out of server-error alerts;</li>
 * <li>ZooKeeper unreachable or silent, registry closed, thread interrupted
 * ({@code NOT_CONNECTED}, {@code NO_REPLY}, {@code CLOSED}, {@code INTERRUPTED}):
 * {@code 503 Service Unavailable} with {@code Retry-After};</li>
 * <li>ZooKeeper refused the operation ({@code ERROR}): {@code 500}.</li>
 * </ul>
 * With Spring MVC, a {@link LockAcquisitionProblemResolver}; with WebFlux, a
 * {@link LockAcquisitionProblemWebExceptionHandler}. Switched by
 * {@code zklock.web.problem-details.enabled}; either bean of the application's own
 * replaces ours.
 *
 * @author zk-lock
 */
@AutoConfiguration
@ConditionalOnWebApplication
@ConditionalOnClass({ ProblemDetail.class, LockAcquisitionException.class })
@ConditionalOnBooleanProperty(name = "zklock.web.problem-details.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ZkLockProperties.class)
public final class ZkLockProblemDetailsAutoConfiguration {

	private static Duration retryAfter(ZkLockProperties properties) {
		Duration retryAfter = properties.getWeb().getProblemDetails().getRetryAfter();
		if (retryAfter.isNegative()) {
			throw new InvalidConfigurationPropertyValueException("zklock.web.problem-details.retry-after", retryAfter,
					"must not be negative (0 leaves the Retry-After header out)");
		}
		return retryAfter;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass({ DispatcherServlet.class, RequestMappingHandlerAdapter.class })
	static final class ServletConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockAcquisitionProblemResolver lockAcquisitionProblemResolver(ZkLockProperties properties,
				ObjectProvider<RequestMappingHandlerAdapter> handlerAdapter) {
			return new LockAcquisitionProblemResolver(properties.getWeb().getProblemDetails().isExposeLockDetails(),
					retryAfter(properties), ServletProblemWriter.mvcMessageConverters(handlerAdapter));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass({ WebExceptionHandler.class, ServerCodecConfigurer.class })
	static final class ReactiveConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockAcquisitionProblemWebExceptionHandler lockAcquisitionProblemWebExceptionHandler(ZkLockProperties properties,
				ObjectProvider<ServerCodecConfigurer> codecConfigurer) {
			List<HttpMessageWriter<?>> writers = codecConfigurer.getIfAvailable(ServerCodecConfigurer::create)
				.getWriters();
			return new LockAcquisitionProblemWebExceptionHandler(
					properties.getWeb().getProblemDetails().isExposeLockDetails(), retryAfter(properties), writers);
		}

	}

}
