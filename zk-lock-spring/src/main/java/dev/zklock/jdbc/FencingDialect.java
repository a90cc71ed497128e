package dev.zklock.jdbc;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The databases whose fenced statements {@link JdbcFencing} knows, with those statements
 * as SQL for other clients (JPA native queries, jOOQ, plain JDBC). Each insert-or-update
 * is one statement, so that two holders that fence a new key or record at once cannot
 * both insert it; a fenced read is one statement too, an update that returns the record,
 * so that no later holder's write comes between its check and its read.
 *
 * @author zk-lock
 */
public enum FencingDialect {

	/**
	 * H2 2.x: {@code MERGE INTO ... USING ... WHEN MATCHED AND ... WHEN NOT MATCHED}. Of
	 * two first inserts of one key at once, one waits for the other's commit and then
	 * fails with a duplicate key; H2 rolls back only that statement, so it is run again
	 * and then finds the row.
	 */
	H2 {

		@Override
		public String fenceTransactionSql(String fenceTable) {
			SqlIdentifiers.table("Fence table name", fenceTable);
			return "MERGE INTO " + fenceTable + " f USING (SELECT CAST(? AS VARCHAR(255)) AS fence_key,"
					+ " CAST(? AS BIGINT) AS token) s ON f.fence_key = s.fence_key"
					+ " WHEN MATCHED AND f.token <= s.token THEN UPDATE SET token = s.token"
					+ " WHEN NOT MATCHED THEN INSERT (fence_key, token) VALUES (s.fence_key, s.token)";
		}

		@Override
		String upsertSql(FencedTable table, List<String> columns) {
			String names = table.idColumn() + ", " + String.join(", ", columns) + ", " + table.fenceColumn();
			String parameters = "?, ".repeat(columns.size() + 1) + "?";
			String set = columns.stream().map((column) -> column + " = s." + column).collect(Collectors.joining(", "));
			String values = "s." + names.replace(", ", ", s.");
			return "MERGE INTO " + table.table() + " t USING (VALUES (" + parameters + ")) s(" + names + ") ON t."
					+ table.idColumn() + " = s." + table.idColumn() + " WHEN MATCHED AND t." + table.fenceColumn()
					+ " <= s." + table.fenceColumn() + " THEN UPDATE SET " + set + ", " + table.fenceColumn() + " = s."
					+ table.fenceColumn() + " WHEN NOT MATCHED THEN INSERT (" + names + ") VALUES (" + values + ")";
		}

		@Override
		String readSql(FencedTable table) {
			// A data change delta table: the rows as the update left them
			return "SELECT * FROM FINAL TABLE (" + table.raiseFenceSql() + ")";
		}

	},

	/**
	 * PostgreSQL 9.5 and later: {@code INSERT ... ON CONFLICT ... DO UPDATE ... WHERE}.
	 * Of two first inserts of one key at once, one waits for the other's commit and then
	 * updates, or not, as its condition says against the committed row.
	 */
	POSTGRESQL {

		@Override
		public String fenceTransactionSql(String fenceTable) {
			SqlIdentifiers.table("Fence table name", fenceTable);
			return "INSERT INTO " + fenceTable + " AS f (fence_key, token) VALUES (?, ?) ON CONFLICT (fence_key)"
					+ " DO UPDATE SET token = EXCLUDED.token WHERE f.token <= EXCLUDED.token";
		}

		@Override
		String upsertSql(FencedTable table, List<String> columns) {
			String names = table.idColumn() + ", " + String.join(", ", columns) + ", " + table.fenceColumn();
			String parameters = "?, ".repeat(columns.size() + 1) + "?";
			String set = columns.stream()
				.map((column) -> column + " = EXCLUDED." + column)
				.collect(Collectors.joining(", "));
			return "INSERT INTO " + table.table() + " AS t (" + names + ") VALUES (" + parameters + ") ON CONFLICT ("
					+ table.idColumn() + ") DO UPDATE SET " + set + ", " + table.fenceColumn() + " = EXCLUDED."
					+ table.fenceColumn() + " WHERE t." + table.fenceColumn() + " <= EXCLUDED." + table.fenceColumn();
		}

		@Override
		String readSql(FencedTable table) {
			return table.raiseFenceSql() + " RETURNING *";
		}

	};

	/**
	 * Return the statement that fences a transaction: it raises the key's row of the
	 * fence table to the token, inserting it if absent, where the stored token is at most
	 * the given one. Its parameters: the key, the token. It changes one row, or none if
	 * the stored token is higher (refused). Run first in the transaction: the row it
	 * changes stays locked until the transaction ends, so that a later holder's fence
	 * waits for this transaction's commit, and every write after it is fenced.
	 * @param fenceTable the fence table, {@value JdbcFencing#DEFAULT_FENCE_TABLE} by
	 * default
	 * @return the SQL
	 */
	public abstract String fenceTransactionSql(String fenceTable);

	/**
	 * See {@link FencedTable#upsertSql(FencingDialect, List)}.
	 */
	abstract String upsertSql(FencedTable table, List<String> columns);

	/**
	 * See {@link FencedTable#readSql(FencingDialect)}.
	 */
	abstract String readSql(FencedTable table);

	/**
	 * Return the dialect of a database, from the product name its JDBC driver reports.
	 * @param databaseProductName the name, as
	 * {@link java.sql.DatabaseMetaData#getDatabaseProductName()} gives it
	 * @return the dialect
	 * @throws IllegalArgumentException if fenced writes do not know the database
	 */
	public static FencingDialect of(String databaseProductName) {
		String name = databaseProductName.toLowerCase(Locale.ROOT);
		if (name.equals("h2")) {
			return H2;
		}
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		throw new IllegalArgumentException("Fenced writes know H2 and PostgreSQL; this database is '"
				+ databaseProductName + "'. Its statements are given with FencingDialect to adapt");
	}

}
