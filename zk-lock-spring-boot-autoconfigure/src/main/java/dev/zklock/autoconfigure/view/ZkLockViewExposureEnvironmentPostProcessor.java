package dev.zklock.autoconfigure.view;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Makes {@code zklock.view.enabled=true} the one property that turns the live page on:
 * adds {@code zkcluster} to {@code management.endpoints.web.exposure.include}, keeping
 * what the application includes ({@code health} when it says nothing, as Spring Boot
 * does). The application's {@code management.endpoints.web.exposure.exclude} still wins,
 * and the endpoint is secured like any other.
 *
 * @author zk-lock
 */
final class ZkLockViewExposureEnvironmentPostProcessor implements EnvironmentPostProcessor {

	/** The name of the property source that adds the endpoint. */
	static final String PROPERTY_SOURCE_NAME = "zkLockViewExposure";

	static final String INCLUDE = "management.endpoints.web.exposure.include";

	static final String ENDPOINT_ID = "zkcluster";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("zklock.view.enabled", Boolean.class, false)
				|| !environment.getProperty("zklock.enabled", Boolean.class, true)) {
			return;
		}
		// Bound as Boot binds it: a comma list or an indexed one, from any source
		Set<String> include = new LinkedHashSet<>(
				Binder.get(environment).bind(INCLUDE, Bindable.setOf(String.class)).orElse(Set.of("health")));
		include.removeIf(String::isBlank);
		if (include.stream().map(String::trim).anyMatch((id) -> id.equals("*") || id.equals(ENDPOINT_ID))) {
			return;
		}
		include.add(ENDPOINT_ID);
		environment.getPropertySources()
			.addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, Map.of(INCLUDE,
					StringUtils.collectionToCommaDelimitedString(include.stream().map(String::trim).toList()))));
	}

}
