package dev.zklock.jdbc;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A table whose records are fenced one by one: each record keeps, in its fence column,
 * the fencing token of the last holder that wrote it, and a write applies only where that
 * stored token is at most the writer's, storing the writer's token in turn. The column is
 * declared {@code fence BIGINT DEFAULT 0 NOT NULL}; records that existed before it start
 * at 0, below every token.
 *
 * <p>
 * {@link JdbcFencing#read}, {@link JdbcFencing#update} and {@link JdbcFencing#upsert} run
 * these statements; the SQL is also given here, with {@code ?} parameters, for JPA native
 * queries, jOOQ or plain JDBC. A statement that changes no row of an existing record was
 * refused: read the stored fence with {@link #fenceSql()} and throw
 * {@link FencingTokenRejectedException} (or pass the row count to
 * {@link JdbcFencing#checkWritten}).
 *
 * <p>
 * Only the holders of one lock key may write a record: the tokens of different keys do
 * not order the writers of one record. A deleted record loses its fence with it: a stale
 * holder could then insert it again. Keep a record that stale holders may still write
 * (mark it deleted), or fence the transaction instead
 * ({@link JdbcFencing#fenceTransaction()}), whose fence rows outlive the records.
 *
 * @param table the table, optionally qualified by its schema
 * @param idColumn the column that identifies a record: its primary key or another unique
 * key (an upsert needs the constraint)
 * @param fenceColumn the column that keeps the token, {@value #DEFAULT_FENCE_COLUMN} by
 * default
 * @author zk-lock
 */
public record FencedTable(String table, String idColumn, String fenceColumn) {

	/**
	 * The default name of the fence column.
	 */
	public static final String DEFAULT_FENCE_COLUMN = "fence";

	/**
	 * Check the names: plain SQL identifiers, as they are put into statements.
	 * @param table the table
	 * @param idColumn the id column
	 * @param fenceColumn the fence column
	 */
	public FencedTable {
		SqlIdentifiers.table("Fenced table name", table);
		SqlIdentifiers.column("Id column of fenced table '" + table + "'", idColumn);
		SqlIdentifiers.column("Fence column of fenced table '" + table + "'", fenceColumn);
		if (idColumn.equalsIgnoreCase(fenceColumn)) {
			throw new IllegalArgumentException("Fenced table '" + table
					+ "' needs a fence column of its own, not its id column '" + idColumn + "'");
		}
	}

	/**
	 * Describe a table whose fence column is {@value #DEFAULT_FENCE_COLUMN}.
	 * @param table the table, optionally qualified by its schema
	 * @param idColumn the column that identifies a record
	 * @return the fenced table
	 */
	public static FencedTable of(String table, String idColumn) {
		return new FencedTable(table, idColumn, DEFAULT_FENCE_COLUMN);
	}

	/**
	 * Return a copy with another fence column.
	 * @param fenceColumn the column that keeps the token
	 * @return the new fenced table
	 */
	public FencedTable withFenceColumn(String fenceColumn) {
		return new FencedTable(this.table, this.idColumn, fenceColumn);
	}

	/**
	 * Return the fenced update of some columns of one record, as
	 * {@code UPDATE t SET a = ?, b = ?, fence = ? WHERE id = ? AND fence <= ?}. Its
	 * parameters: the columns' values in order, the token, the id, the token again. It
	 * changes one row, or none if the record does not exist or its stored token is higher
	 * (refused).
	 * @param columns the columns to set, at least one
	 * @return the SQL
	 */
	public String updateSql(List<String> columns) {
		checkColumns(columns);
		String set = columns.stream().map((column) -> column + " = ?").collect(Collectors.joining(", "));
		return "UPDATE " + this.table + " SET " + set + ", " + this.fenceColumn + " = ? WHERE " + this.idColumn
				+ " = ? AND " + this.fenceColumn + " <= ?";
	}

	/**
	 * Return the fenced insert-or-update of one record in a database's dialect: inserted
	 * with the token if absent, else updated as {@link #updateSql} does. Its parameters:
	 * the id, the columns' values in order, the token. It changes one row, or none if the
	 * record exists with a higher token (refused). On H2, two first inserts of one record
	 * at once: one waits for the other's commit, then fails with a duplicate key; run it
	 * again.
	 * @param dialect the database's dialect
	 * @param columns the columns to set besides the id and fence, at least one
	 * @return the SQL
	 */
	public String upsertSql(FencingDialect dialect, List<String> columns) {
		checkColumns(columns);
		return dialect.upsertSql(this, columns);
	}

	/**
	 * Return the fenced read of one record in a database's dialect: an update that raises
	 * the record's fence to the token, where its stored token is at most this one, and
	 * returns the whole record as the update left it, in one statement. PostgreSQL:
	 * {@code UPDATE t SET fence = ? WHERE id = ? AND fence <= ? RETURNING *}; H2:
	 * {@code SELECT * FROM FINAL TABLE (UPDATE ...)}. Its parameters: the token, the id,
	 * the token again. It returns one row, or none if the record does not exist or its
	 * stored token is higher (refused: read the stored fence with {@link #fenceSql()} to
	 * tell the two apart).
	 * <p>
	 * Once it has run, a write with a lower token is refused: a holder that lost its lock
	 * and comes back with a write computed from what it read before is refused even when
	 * the newer holder has only read yet. Inside a transaction the record stays locked
	 * until the transaction ends, so that the next holder's fenced read waits for it and
	 * then reads what it wrote.
	 * @param dialect the database's dialect
	 * @return the SQL
	 */
	public String readSql(FencingDialect dialect) {
		return dialect.readSql(this);
	}

	/**
	 * The update at the heart of a fenced read, in standard SQL: raise the fence, change
	 * nothing else.
	 */
	String raiseFenceSql() {
		return "UPDATE " + this.table + " SET " + this.fenceColumn + " = ? WHERE " + this.idColumn + " = ? AND "
				+ this.fenceColumn + " <= ?";
	}

	/**
	 * Return the query of one record's stored token, {@code SELECT fence FROM t WHERE
	 * id = ?}.
	 * @return the SQL
	 */
	public String fenceSql() {
		return "SELECT " + this.fenceColumn + " FROM " + this.table + " WHERE " + this.idColumn + " = ?";
	}

	/**
	 * Name one record, for messages.
	 */
	String describe(Object id) {
		return this.table + "[" + this.idColumn + "=" + id + "]";
	}

	private void checkColumns(List<String> columns) {
		if (columns.isEmpty()) {
			throw new IllegalArgumentException(
					"A fenced write to '" + this.table + "' needs at least one column to set");
		}
		for (String column : columns) {
			SqlIdentifiers.column("Column of fenced table '" + this.table + "'", column);
			if (column.equalsIgnoreCase(this.idColumn) || column.equalsIgnoreCase(this.fenceColumn)) {
				throw new IllegalArgumentException("Column '" + column + "' of fenced table '" + this.table
						+ "' is set by the fenced write itself: give the id as the id and leave the fence to the token");
			}
		}
	}

}
