package dev.zklock.autoconfigure.metadata;

import java.util.List;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link UnknownZkLockPropertiesException} in Spring Boot's "APPLICATION
 * FAILED TO START" form: each unknown key with where it came from and the property it
 * most likely meant, in the layout of Boot's own property reports.
 */
final class UnknownZkLockPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<UnknownZkLockPropertiesException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownZkLockPropertiesException cause) {
		List<UnknownZkLockProperty> properties = cause.getProperties();
		boolean one = properties.size() == 1;
		StringBuilder description = new StringBuilder(
				one ? "A property under zklock is" : properties.size() + " properties under zklock are")
			.append(" not known to zk-lock, which would ignore ")
			.append(one ? "it" : "them")
			.append(" and use its defaults:\n");
		for (UnknownZkLockProperty property : properties) {
			description.append("\n    Property: ").append(property.name());
			description.append("\n    Origin: ").append(property.origin());
			if (property.suggestion() != null) {
				description.append("\n    Did you mean: ").append(property.suggestion());
			}
			description.append('\n');
		}
		String action = "Consider the following:\n"
				+ "\tCorrect the property names. zk-lock's properties are listed in its "
				+ "docs/configuration-properties.md and in its modules' configuration metadata, which IDEs complete "
				+ "from.\n"
				+ "\tIf a property belongs to a zk-lock module that is not on the classpath, add the module.\n"
				+ "\tIf the properties are not meant for zk-lock, move them out of zklock.*, or set "
				+ "zklock.fail-on-unknown-properties=false to start with them ignored (zk-lock then lists them in "
				+ "one warning).";
		return new FailureAnalysis(description.toString().stripTrailing(), action, cause);
	}

}
