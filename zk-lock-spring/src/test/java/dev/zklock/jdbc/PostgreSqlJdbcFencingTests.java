package dev.zklock.jdbc;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Fenced writes on a real PostgreSQL (read committed by default), started by the test.
 */
class PostgreSqlJdbcFencingTests extends AbstractJdbcFencingTests {

	@Override
	DataSource newDataSource() {
		return EmbeddedPostgreSql.newDatabase().dataSource();
	}

	@Override
	int waitingSessions(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
				+ " AND wait_event_type = 'Lock'", Integer.class);
	}

	@Override
	FencingDialect expectedDialect() {
		return FencingDialect.POSTGRESQL;
	}

}
