package dev.zklock.jdbc;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fenced writes on a real PostgreSQL (read committed by default), started by the test.
 */
class PostgreSqlJdbcFencingTests extends AbstractJdbcFencingTests {

	/**
	 * The setting docs/fencing.md gives, as a JDBC URL parameter: PostgreSQL ends a
	 * session that stays idle inside an open transaction for a second.
	 */
	static final String IDLE_IN_TRANSACTION_TIMEOUT = "options=-c%20idle_in_transaction_session_timeout%3D1s";

	private EmbeddedPostgreSql.Database database;

	@Override
	DataSource newDataSource() {
		this.database = EmbeddedPostgreSql.newDatabase();
		return this.database.dataSource();
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

	/**
	 * A holder frozen inside its open fenced transaction holds the fence row, so the next
	 * holder's fence waits for it. With {@code idle_in_transaction_session_timeout} on
	 * the holders' connections, PostgreSQL ends the frozen transaction (rolling it back)
	 * and the next holder goes on; without it, the next holder would wait for as long as
	 * the pause lasts (here the 30 s after which the test's open transaction gives up).
	 */
	@Test
	void aFrozenHoldersOpenTransactionIsEndedByTheDatabaseAndTheNextHolderGoesOn() throws Exception {
		DataSource frozenSide = new SimpleDriverDataSource(new org.postgresql.Driver(),
				this.database.jdbcUrl() + "&" + IDLE_IN_TRANSACTION_TIMEOUT);
		JdbcFencing frozenFencing = new JdbcFencing(frozenSide);
		OpenTransaction frozen = OpenTransaction.start(new DataSourceTransactionManager(frozenSide), () -> {
			frozenFencing.fenceTransaction("stock:apple", 100);
			new JdbcTemplate(frozenSide).update("UPDATE stock SET qty = 0 WHERE sku = 'apple'");
		});
		frozen.awaitWork();
		CompletableFuture<Void> next = CompletableFuture
			.runAsync(() -> this.transactions.executeWithoutResult((status) -> {
				this.fencing.fenceTransaction("stock:apple", 200);
				int qty = this.jdbc.queryForObject("SELECT qty FROM stock WHERE sku = 'apple'", Integer.class);
				this.jdbc.update("UPDATE stock SET qty = ? WHERE sku = 'apple'", qty - 1);
			}));
		next.get(20, TimeUnit.SECONDS);
		assertThat(stock("apple")).as("the frozen transaction was rolled back").isEqualTo(List.of(9, 0L));
		assertThat(fence("stock:apple")).isEqualTo(200);
		// The frozen holder, resumed, finds its transaction gone
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(frozen::commit);
	}

}
