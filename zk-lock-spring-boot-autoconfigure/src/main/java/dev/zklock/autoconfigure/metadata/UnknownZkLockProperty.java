package dev.zklock.autoconfigure.metadata;

import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A {@code zklock.*} key in one property source that no zk-lock module declares. Its
 * value is not kept: a misspelled password property would show the password.
 *
 * @param name the key as written in its source
 * @param origin where the key came from, in words: a file and line, an environment
 * variable, a system property, a command-line argument, or a property source's name
 * @param suggestion the declared property nearest to the key (with its environment
 * variable form when the key is an environment variable), or {@code null} when none is
 * near
 * @author zk-lock
 */
record UnknownZkLockProperty(String name, String origin, @Nullable String suggestion) {

	/**
	 * Describe properties in one line, for the exception's message and the warning.
	 * @param properties the properties
	 * @return {@code N properties under zklock: name (origin; did you mean ...?), ...}
	 */
	static String describe(List<UnknownZkLockProperty> properties) {
		return count(properties) + ": " + list(properties);
	}

	/**
	 * List properties in one line.
	 * @param properties the properties
	 * @return {@code name (origin; did you mean ...?), ...}
	 */
	static String list(List<UnknownZkLockProperty> properties) {
		return properties.stream().map(UnknownZkLockProperty::describe).collect(Collectors.joining(", "));
	}

	/**
	 * Count properties in words.
	 * @param properties the properties
	 * @return {@code 1 property under zklock} or {@code N properties under zklock}
	 */
	static String count(List<UnknownZkLockProperty> properties) {
		return properties.size() + ((properties.size() == 1) ? " property" : " properties") + " under "
				+ ZkLockConfigurationMetadata.PREFIX;
	}

	private String describe() {
		return this.name + " (" + this.origin
				+ ((this.suggestion != null) ? "; did you mean " + this.suggestion + "?" : "") + ")";
	}

}
