package dev.zklock.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Checks the names that the fenced statements put into SQL: plain identifiers only, so
 * that no name can change what a statement does.
 */
final class SqlIdentifiers {

	private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]*");

	private SqlIdentifiers() {
	}

	/**
	 * Check a column name.
	 */
	static String column(String what, String name) {
		return check(what, name, NAME, "a plain SQL identifier (letters, digits and '_', not quoted)");
	}

	/**
	 * Check a table name, optionally qualified by its schema.
	 */
	static String table(String what, String name) {
		return check(what, name, QUALIFIED_NAME,
				"a plain SQL identifier (letters, digits and '_', not quoted), optionally 'schema.table'");
	}

	private static String check(String what, String name, Pattern pattern, String expected) {
		Objects.requireNonNull(name, () -> what + " must not be null");
		if (!pattern.matcher(name).matches()) {
			throw new IllegalArgumentException(what + " '" + name + "' is not " + expected);
		}
		return name;
	}

}
