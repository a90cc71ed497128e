package dev.zklock.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * Reports an invalid {@code zklock.*} value as Spring Boot's own analyzer of
 * {@link InvalidConfigurationPropertyValueException} does (the property, its value, where
 * it was set, the reason), but with the value as zk-lock's check gave it, control
 * characters escaped: Spring Boot's shows the value as the environment has it, so a
 * {@code zklock.namespace} holding a carriage return or an escape sequence would reach
 * the console as it is. Ordered before Spring Boot's; other properties are left to it.
 */
@Order(0)
final class InvalidZkLockPropertyFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidConfigurationPropertyValueException> {

	private final Environment environment;

	InvalidZkLockPropertyFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure,
			InvalidConfigurationPropertyValueException cause) {
		String name = cause.getName();
		if (!name.startsWith("zklock.")) {
			return null;
		}
		StringBuilder description = new StringBuilder();
		description.append("Invalid value '")
			.append(LockPaths.printable(String.valueOf(cause.getValue())))
			.append("' for configuration property '")
			.append(name)
			.append("'");
		Origin origin = origin(name);
		if (origin != null) {
			description.append(" (originating from '").append(LockPaths.printable(origin.toString())).append("')");
		}
		description.append(".");
		String reason = cause.getReason();
		if (reason != null) {
			description.append(" Validation failed for the following reason:\n\n").append(reason);
		}
		return new FailureAnalysis(description.toString(), "Review the value of the property with the provided reason.",
				cause);
	}

	private @Nullable Origin origin(String name) {
		if (!(this.environment instanceof ConfigurableEnvironment)) {
			return null;
		}
		ConfigurationPropertyName propertyName = ConfigurationPropertyName.of(name);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			ConfigurationProperty property = source.getConfigurationProperty(propertyName);
			if (property != null) {
				return property.getOrigin();
			}
		}
		return null;
	}

}
