package dev.zklock.jdbc;

import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Fenced writes on H2 (MVCC, read committed by default).
 */
class H2JdbcFencingTests extends AbstractJdbcFencingTests {

	@Override
	DataSource newDataSource() {
		return new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000");
	}

	@Override
	int waitingSessions(JdbcTemplate jdbc) {
		// A statement that waits for a row lock is BLOCKED; one whose insert waits for
		// another transaction's uncommitted insert of the same key is RUNNING, with no
		// blocker: count every other session that runs a statement (the open transactions
		// of the tests run none once their work is done)
		return jdbc.queryForObject("SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS"
				+ " WHERE SESSION_ID <> SESSION_ID() AND EXECUTING_STATEMENT IS NOT NULL", Integer.class);
	}

	@Override
	FencingDialect expectedDialect() {
		return FencingDialect.H2;
	}

}
