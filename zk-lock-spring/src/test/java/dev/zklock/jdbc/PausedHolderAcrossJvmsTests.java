package dev.zklock.jdbc;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.ChildJvm;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.jdbc.PausedHolderMain.Mode;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The paused holder, shown: on a real ZooKeeper (in this JVM) and a real PostgreSQL, JVM
 * A takes the lock of a record, reads it and is frozen ({@code kill -STOP}) past its
 * session timeout; once the server has expired A's session (its lock nodes are gone), JVM
 * B takes the lock, reads and writes; then A is resumed ({@code kill -CONT}) and writes
 * the value it read. Three records, one per {@link Mode}, share each pause:
 * <ul>
 * <li>unfenced: A's stale write is accepted and B's update is lost, the failure fencing
 * exists for;</li>
 * <li>a fenced record: A's write is refused with both tokens, and B's update stays;</li>
 * <li>a fenced transaction: A fenced before its pause, so B's transaction waits at the
 * fence row for A's commit and then reads A's write: the two run one after the other, and
 * nothing is lost;</li>
 * <li>a read-modify-write whose next holder reads before A's late write and writes after
 * it, each statement on its own: through a plain read and a fenced update, both writes
 * are accepted and one increment is lost (the update alone does not protect what was read
 * before it); through a fenced read, A's write is refused and nothing is lost.</li>
 * </ul>
 * {@value #DEFAULT_ROUNDS} rounds in a row by default ({@code -Dzklock.paused.rounds=N}),
 * each about the session timeout of A ({@value #PAUSED_SESSION_MS} ms) and a second.
 */
@Timeout(600)
class PausedHolderAcrossJvmsTests {

	static final int DEFAULT_ROUNDS = 20;

	/** A's session: the shortest the server allows is two of its 200 ms ticks. */
	static final int PAUSED_SESSION_MS = 2000;

	/** B's session: the longest the server allows, so that a loaded machine keeps it. */
	static final int WRITER_SESSION_MS = 4000;

	private static final Duration WAIT = Duration.ofSeconds(60);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@TempDir
	Path output;

	private EmbeddedPostgreSql.Database database;

	private JdbcTemplate jdbc;

	private Holder paused;

	private Holder writer;

	private final Tally tally = new Tally();

	@BeforeEach
	void createSchema() {
		this.database = EmbeddedPostgreSql.newDatabase();
		this.jdbc = new JdbcTemplate(this.database.dataSource());
		this.jdbc.execute("CREATE TABLE zklock_fence (fence_key VARCHAR(255) PRIMARY KEY, token BIGINT NOT NULL)");
		this.jdbc.execute("CREATE TABLE record (id VARCHAR(32) PRIMARY KEY, value INT NOT NULL,"
				+ " fence BIGINT DEFAULT 0 NOT NULL)");
		for (Mode mode : Mode.values()) {
			this.jdbc.update("INSERT INTO record (id, value) VALUES (?, 0)", mode.name());
		}
	}

	@AfterEach
	void stopHolders() {
		for (Holder holder : new Holder[] { this.paused, this.writer }) {
			if (holder != null) {
				holder.process.destroyForcibly();
			}
		}
	}

	@Test
	void pausedHoldersStaleWriteIsRefusedOnlyWhereFenced() throws Exception {
		int rounds = Integer.getInteger("zklock.paused.rounds", DEFAULT_ROUNDS);
		this.paused = Holder.start(this.zk.connectString(), PAUSED_SESSION_MS, this.database.jdbcUrl(), true,
				this.output.resolve("paused.log"));
		this.writer = Holder.start(this.zk.connectString(), WRITER_SESSION_MS, this.database.jdbcUrl(), false,
				this.output.resolve("writer.log"));
		this.paused.awaitLine("ready");
		this.writer.awaitLine("ready");
		for (int round = 1; round <= rounds; round++) {
			round(round);
		}
		// For the record of a run: the paused read-modify-write, without and with the
		// fenced read
		System.out.println("Paused read-modify-write over " + rounds + " rounds: " + this.tally);
	}

	private void round(int round) throws Exception {
		for (Mode mode : Mode.values()) {
			this.jdbc.update("UPDATE record SET value = 0 WHERE id = ?", mode.name());
		}
		this.paused.send("hold");
		for (Mode mode : Mode.values()) {
			this.paused.awaitLine("READ " + mode + " ");
		}
		this.paused.signal("STOP");
		// The server expires A's session: its nodes go, and B may take the locks
		for (Mode mode : Mode.values()) {
			await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(50))
				.until(() -> this.zk.children("/locks/" + mode.key()).isEmpty());
		}
		this.writer.send("hold");
		this.writer.awaitLine("WROTE " + Mode.UNFENCED + " ");
		this.writer.awaitLine("WROTE " + Mode.RECORD + " ");
		// B has read, not written, the records whose next holder reads first
		this.writer.awaitLine("READ " + Mode.READ_THEN_UPDATE + " ");
		this.writer.awaitLine("READ " + Mode.FENCED_READ + " ");
		// B's fenced transaction waits at the fence row that frozen A holds
		await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> waitingForALock() > 0);
		this.paused.signal("CONT");
		this.paused.send("go");
		this.paused.awaitLine("done");
		// A's late writes are in (or refused): now B writes what it read before them
		this.writer.send("go");
		this.writer.awaitLine("done");

		long unfencedA = this.paused.token(Mode.UNFENCED);
		long unfencedB = this.writer.token(Mode.UNFENCED);
		assertThat(unfencedB).as("round %d: B's token above A's", round).isGreaterThan(unfencedA);
		assertThat(this.paused.result(Mode.UNFENCED)).as("round %d: A's unfenced stale write", round)
			.startsWith("WROTE");
		assertThat(this.writer.result(Mode.UNFENCED)).startsWith("WROTE");
		assertThat(value(Mode.UNFENCED)).as("round %d: two writes of +1 accepted, B's update lost", round).isEqualTo(1);

		long recordA = this.paused.token(Mode.RECORD);
		long recordB = this.writer.token(Mode.RECORD);
		assertThat(recordB).isGreaterThan(recordA);
		assertThat(this.paused.result(Mode.RECORD)).as("round %d: A's fenced stale write", round)
			.startsWith("REFUSED " + Mode.RECORD + " " + recordA + " " + recordB + " ")
			.as("round %d: a paused holder is never told its lock is held", round)
			.doesNotEndWith(" HELD");
		assertThat(value(Mode.RECORD)).as("round %d: B's update stays", round).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT fence FROM record WHERE id = 'RECORD'", Long.class))
			.isEqualTo(recordB);

		long transactionA = this.paused.token(Mode.TRANSACTION);
		long transactionB = this.writer.token(Mode.TRANSACTION);
		assertThat(transactionB).isGreaterThan(transactionA);
		assertThat(this.paused.result(Mode.TRANSACTION)).startsWith("WROTE " + Mode.TRANSACTION);
		assertThat(this.writer.result(Mode.TRANSACTION)).as("round %d: B read A's committed write", round)
			.isEqualTo("WROTE " + Mode.TRANSACTION + " " + transactionB + " 2");
		assertThat(value(Mode.TRANSACTION)).as("round %d: nothing lost", round).isEqualTo(2);

		// The next holder read before A's late write, and writes after it
		long plainA = this.paused.token(Mode.READ_THEN_UPDATE);
		long plainB = this.writer.token(Mode.READ_THEN_UPDATE);
		assertThat(plainB).isGreaterThan(plainA);
		assertThat(this.paused.result(Mode.READ_THEN_UPDATE))
			.as("round %d: A's fenced update after a plain read is accepted", round)
			.isEqualTo("WROTE " + Mode.READ_THEN_UPDATE + " " + plainA + " 1");
		assertThat(this.writer.result(Mode.READ_THEN_UPDATE))
			.isEqualTo("WROTE " + Mode.READ_THEN_UPDATE + " " + plainB + " 1");
		assertThat(value(Mode.READ_THEN_UPDATE)).as("round %d: two increments accepted, one lost", round).isEqualTo(1);
		this.tally.count(Mode.READ_THEN_UPDATE, this.paused.result(Mode.READ_THEN_UPDATE), 2,
				value(Mode.READ_THEN_UPDATE));

		long readA = this.paused.token(Mode.FENCED_READ);
		long readB = this.writer.token(Mode.FENCED_READ);
		assertThat(readB).isGreaterThan(readA);
		assertThat(this.paused.result(Mode.FENCED_READ)).as("round %d: A's write after a fenced read", round)
			.startsWith("REFUSED " + Mode.FENCED_READ + " " + readA + " " + readB + " ")
			.doesNotEndWith(" HELD");
		assertThat(this.writer.result(Mode.FENCED_READ)).isEqualTo("WROTE " + Mode.FENCED_READ + " " + readB + " 1");
		assertThat(value(Mode.FENCED_READ)).as("round %d: one increment accepted, none lost", round).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT fence FROM record WHERE id = 'FENCED_READ'", Long.class))
			.isEqualTo(readB);
		this.tally.count(Mode.FENCED_READ, this.paused.result(Mode.FENCED_READ), 1, value(Mode.FENCED_READ));
		this.paused.nextRound();
		this.writer.nextRound();
	}

	@Test
	void tokenIncreasesWhenTheLockNodesParentIsDeletedAndCreatedAgain() throws Exception {
		String key = "container-reaped";
		ZkLockRegistry first = this.zk.newRegistry();
		ZkLockRegistry second = this.zk.newRegistry();
		CuratorFramework operator = this.zk.newClient();
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		TransactionTemplate transactions = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		ZkLock lock = first.obtain(key);
		lock.lock();
		long firstToken = lock.fencingToken();
		List<String> firstNodes = this.zk.children("/locks/" + key);
		lock.unlock();
		transactions.executeWithoutResult((status) -> fencing.fenceTransaction(key, firstToken));
		// What the server's container reaper does to an empty lock parent
		await().atMost(WAIT).until(() -> this.zk.children("/locks/" + key).isEmpty());
		operator.delete().forPath("/locks/" + key);
		assertThat(operator.checkExists().forPath("/locks/" + key)).isNull();
		ZkLock again = second.obtain(key);
		again.lock();
		long secondToken = again.fencingToken();
		List<String> secondNodes = this.zk.children("/locks/" + key);
		again.unlock();
		assertThat(firstNodes).hasSize(1);
		assertThat(secondNodes).hasSize(1);
		assertThat(sequence(secondNodes.get(0))).as("the sequence restarted with the new parent")
			.isEqualTo(sequence(firstNodes.get(0)));
		assertThat(secondToken).as("the creation zxid did not").isGreaterThan(firstToken);
		transactions.executeWithoutResult((status) -> fencing.fenceTransaction(key, secondToken));
		assertThatExceptionOfType(FencingTokenRejectedException.class)
			.isThrownBy(() -> transactions.executeWithoutResult((status) -> fencing.fenceTransaction(key, firstToken)));
	}

	private static String sequence(String node) {
		return node.substring(node.lastIndexOf('-') + 1);
	}

	private int value(Mode mode) {
		return this.jdbc.queryForObject("SELECT value FROM record WHERE id = ?", Integer.class, mode.name());
	}

	private int waitingForALock() {
		return this.jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
				+ " AND wait_event_type = 'Lock'", Integer.class);
	}

	/**
	 * The stale holder's writes of the read-modify-write modes, accepted or refused, and
	 * the increments lost, summed over the rounds.
	 */
	private static final class Tally {

		private final Map<Mode, int[]> counts = new EnumMap<>(Mode.class);

		/**
		 * @param staleResult the stale holder's result line
		 * @param accepted the increments accepted in the round, both holders'
		 * @param value the record's value after the round
		 */
		void count(Mode mode, String staleResult, int accepted, int value) {
			int[] count = this.counts.computeIfAbsent(mode, (key) -> new int[3]);
			count[staleResult.startsWith("WROTE") ? 0 : 1]++;
			count[2] += accepted - value;
		}

		@Override
		public String toString() {
			StringBuilder text = new StringBuilder();
			this.counts.forEach((mode, count) -> text.append(mode)
				.append(" {staleWritesAccepted=")
				.append(count[0])
				.append(", staleWritesRefused=")
				.append(count[1])
				.append(", lostUpdates=")
				.append(count[2])
				.append("} "));
			return text.toString().trim();
		}

	}

	/**
	 * A holder JVM, driven through its standard input and read through its output file.
	 */
	private static final class Holder {

		private final Process process;

		private final Path log;

		private final OutputStream input;

		/** Where this round's lines begin in the log. */
		private int roundStart;

		private Holder(Process process, Path log) {
			this.process = process;
			this.log = log;
			this.input = process.getOutputStream();
		}

		static Holder start(String connectString, int sessionTimeout, String url, boolean park, Path log)
				throws IOException {
			return new Holder(ChildJvm.start(PausedHolderMain.class, log, connectString,
					Integer.toString(sessionTimeout), url, park ? "park" : "write"), log);
		}

		void send(String line) throws IOException {
			this.input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
			this.input.flush();
		}

		void signal(String signal) throws Exception {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start();
			assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(kill.exitValue()).as("kill -%s", signal).isZero();
		}

		List<String> lines() throws IOException {
			List<String> all = Files.readAllLines(this.log);
			return all.subList(Math.min(this.roundStart, all.size()), all.size())
				.stream()
				.filter((line) -> line.startsWith("@@ "))
				.map((line) -> line.substring(3))
				.toList();
		}

		void awaitLine(String prefix) {
			await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
				assertThat(this.process.isAlive()).as("holder alive; log:%n%s", Files.readString(this.log)).isTrue();
				assertThat(lines()).as("lines; log:%n%s", Files.readString(this.log))
					.noneMatch((line) -> line.startsWith("FAILED"))
					.anyMatch((line) -> line.startsWith(prefix));
			});
		}

		long token(Mode mode) throws IOException {
			return Long.parseLong(line("READ " + mode + " ").split(" ")[2]);
		}

		String result(Mode mode) throws IOException {
			return line("WROTE " + mode + " ", "REFUSED " + mode + " ");
		}

		private String line(String... prefixes) throws IOException {
			Optional<String> found = lines().stream()
				.filter((line) -> Arrays.stream(prefixes).anyMatch(line::startsWith))
				.findFirst();
			assertThat(found)
				.as("a line starting with one of %s; log:%n%s", List.of(prefixes), Files.readString(this.log))
				.isPresent();
			return found.get();
		}

		void nextRound() throws IOException {
			this.roundStart = Files.readAllLines(this.log).size();
		}

	}

}
