package dev.zklock.autoconfigure.metadata;

import java.util.List;

/**
 * Thrown at startup when the environment has {@code zklock.*} properties that no zk-lock
 * module on the classpath declares, a misspelled name most often: zk-lock would ignore
 * them and use its defaults, such as a connection to {@code localhost:2181} instead of
 * the ensemble meant. {@code zklock.fail-on-unknown-properties=false} logs them instead.
 *
 * @author zk-lock
 */
public class UnknownZkLockPropertiesException extends IllegalStateException {

	private final List<UnknownZkLockProperty> properties;

	UnknownZkLockPropertiesException(List<UnknownZkLockProperty> properties) {
		super("zk-lock does not know " + UnknownZkLockProperty.describe(properties)
				+ ". Correct the names, or set zklock.fail-on-unknown-properties=false to start with unknown keys "
				+ "ignored");
		this.properties = List.copyOf(properties);
	}

	/**
	 * Return the unknown keys, each as written where it came from, in the order of their
	 * property sources' precedence.
	 * @return the keys
	 */
	public List<String> getPropertyNames() {
		return this.properties.stream().map(UnknownZkLockProperty::name).toList();
	}

	List<UnknownZkLockProperty> getProperties() {
		return this.properties;
	}

}
