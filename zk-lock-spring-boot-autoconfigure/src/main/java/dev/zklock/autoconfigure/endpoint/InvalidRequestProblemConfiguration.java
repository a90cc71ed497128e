package dev.zklock.autoconfigure.endpoint;

import dev.zklock.autoconfigure.web.ServletProblemWriter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * The {@link InvalidLockKeyProblemResolver} of zk-lock's endpoints with Spring MVC,
 * imported by each endpoint's auto-configuration: any of them may be exposed without the
 * others, and one resolver answers for all.
 *
 * @author zk-lock
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, RequestMappingHandlerAdapter.class })
final class InvalidRequestProblemConfiguration {

	@Bean
	@ConditionalOnMissingBean
	InvalidLockKeyProblemResolver zkLockInvalidRequestProblemResolver(
			ObjectProvider<RequestMappingHandlerAdapter> handlerAdapter) {
		return new InvalidLockKeyProblemResolver(ServletProblemWriter.mvcMessageConverters(handlerAdapter));
	}

}
