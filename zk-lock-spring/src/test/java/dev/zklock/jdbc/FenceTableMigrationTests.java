package dev.zklock.jdbc;

import java.util.UUID;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped fence-table script as a Flyway user adds it ({@code classpath:db/zklock} in
 * the locations, beside the application's own versioned migrations): a repeatable
 * migration, so it takes no version number of the application's, and runs once.
 */
@Timeout(120)
class FenceTableMigrationTests {

	@Test
	void flywayCreatesTheFenceTableOnH2() {
		migrateTwice(new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:flyway-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"));
	}

	@Test
	void flywayCreatesTheFenceTableOnPostgreSql() {
		migrateTwice(EmbeddedPostgreSql.newDatabase().dataSource());
	}

	private void migrateTwice(DataSource dataSource) {
		// The application's own first migration, version 1, beside ours
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		Flyway flyway = Flyway.configure()
			.dataSource(dataSource)
			.locations("classpath:db/zklock", "classpath:dev/zklock/jdbc/migration")
			.load();
		MigrateResult first = flyway.migrate();
		assertThat(first.migrationsExecuted).isEqualTo(2);
		assertThat(flyway.migrate().migrationsExecuted).isZero();
		jdbc.update("INSERT INTO zklock_fence (fence_key, token) VALUES ('stock:apple', 1)");
		assertThat(jdbc.queryForObject("SELECT token FROM zklock_fence WHERE fence_key = 'stock:apple'", Long.class))
			.isOne();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM app_table", Integer.class)).isZero();
	}

}
