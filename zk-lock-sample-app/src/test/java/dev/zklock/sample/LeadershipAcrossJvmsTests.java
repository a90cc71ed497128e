package dev.zklock.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.ChildJvm;
import dev.zklock.core.TimingSensitive;
import dev.zklock.embedded.EmbeddedZooKeeper;
import dev.zklock.leaderapp.LeaderJobApplication;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances of an application on the starter lead one group, with a leader-only job
 * that posts to a ledger in a real PostgreSQL, fenced with its term's epoch. In turn:
 * exactly one leads; the leader is frozen ({@code kill -STOP}) past its session and
 * another leads; resumed, the old leader's run in flight is stopped or its write refused,
 * and no write of an old epoch lands after a newer one; the leader is killed
 * ({@code kill -9}) and another leads within the session timeout and a second; the leader
 * stops gracefully, its running job drains, and the last one leads within a second of the
 * drain. Through all of it the balance equals the writes recorded: nothing lost.
 */
@Timeout(300)
@TimingSensitive
class LeadershipAcrossJvmsTests {

	/** The embedded server's tick is 2 s, and a session's least timeout two ticks. */
	private static final Duration SESSION = Duration.ofSeconds(4);

	private static final Duration WAIT = Duration.ofSeconds(60);

	@TempDir
	Path dir;

	private final List<Instance> instances = new ArrayList<>();

	@AfterEach
	void stopInstances() {
		for (Instance instance : this.instances) {
			instance.signal("CONT");
			instance.process.destroyForcibly();
		}
	}

	@Test
	void oneLeadsAndEveryFailoverKeepsTheLedgerWhole() throws Exception {
		try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
				EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(0, this.dir.resolve("zk"))) {
			JdbcTemplate jdbc = new JdbcTemplate(postgres.getPostgresDatabase());
			jdbc.execute("CREATE TABLE zklock_fence (fence_key VARCHAR(255) PRIMARY KEY, token BIGINT NOT NULL)");
			jdbc.execute("CREATE TABLE ledger (id INT PRIMARY KEY, balance INT NOT NULL)");
			jdbc.execute("INSERT INTO ledger VALUES (1, 0)");
			jdbc.execute("CREATE TABLE ledger_write (id BIGSERIAL PRIMARY KEY, epoch BIGINT NOT NULL,"
					+ " instance VARCHAR(8) NOT NULL, balance INT NOT NULL)");
			for (int i = 0; i < 3; i++) {
				this.instances.add(Instance.start(i, this.dir, zooKeeper.getConnectString(),
						postgres.getJdbcUrl("postgres", "postgres")));
			}

			// Exactly one leads, and its job writes
			Instance first = awaitLeader(List.of(), 0);
			first.awaitLine("WROTE " + first.epoch(), 0);
			assertThat(leaders()).containsExactly(first);

			// Paused past its session: another leads; resumed, its stale run is stopped
			first.awaitLine("READ ", first.lines().size());
			first.signal("STOP");
			Instance second = awaitLeader(List.of(first), 0);
			int secondWrote = second.awaitLine("WROTE " + second.epoch(), 0);
			int firstResumedAt = first.lines().size();
			first.signal("CONT");
			first.awaitAnyLine(List.of("STOPPED ", "REFUSED "), firstResumedAt);
			await().atMost(WAIT).until(() -> first.has("REVOKED " + first.epoch() + " LOST", 0));
			second.awaitLine("WROTE ", secondWrote + 1);
			assertThat(leaders()).containsExactly(second);

			// Killed: another leads within the session timeout and a second
			long killed = System.currentTimeMillis();
			second.process.destroyForcibly();
			Instance third = awaitLeader(List.of(second), 0);
			long crashGap = third.grantedAt() - killed;

			// Stopped gracefully: the last one leads within a second
			third.awaitLine("WROTE " + third.epoch(), 0);
			long stopped = System.currentTimeMillis();
			third.process.destroy();
			Instance last = awaitLeader(List.of(second, third), 0);
			long stopToLead = last.grantedAt() - stopped;
			assertThat(third.process.waitFor(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			assertThat(third.has("REVOKED " + third.epoch() + " CLOSED", 0)).isTrue();
			// Leaderless: from the end of the old leader's drain (its last run's end, or
			// its
			// revocation if none ran) to the new one's grant
			long drained = Math.max(third.lastAt("REVOKED "), third.lastAt("WROTE "));
			long gracefulGap = last.grantedAt() - drained;
			last.awaitLine("WROTE " + last.epoch(), 0);

			// Nothing lost, and no write of an old epoch after a newer one
			List<Map<String, Object>> writes = jdbc
				.queryForList("SELECT epoch, instance FROM ledger_write ORDER BY id");
			Integer balance = jdbc.queryForObject("SELECT balance FROM ledger WHERE id = 1", Integer.class);
			assertThat(balance).as("the balance is the number of writes").isEqualTo(writes.size());
			Map<Long, String> writerOfEpoch = new TreeMap<>();
			long previous = 0;
			for (Map<String, Object> write : writes) {
				long epoch = ((Number) write.get("epoch")).longValue();
				String instance = (String) write.get("instance");
				assertThat(epoch).as("epochs never go back").isGreaterThanOrEqualTo(previous);
				assertThat(Optional.ofNullable(writerOfEpoch.putIfAbsent(epoch, instance)).orElse(instance))
					.as("one writer per epoch")
					.isEqualTo(instance);
				previous = epoch;
			}
			assertThat(writerOfEpoch).hasSizeGreaterThanOrEqualTo(4);
			System.out.println("Leadership across 3 JVMs: " + writes.size() + " writes in " + writerOfEpoch.size()
					+ " terms; failover after kill -9 " + crashGap + " ms (session " + SESSION.toMillis()
					+ " ms), graceful stop to the next grant " + stopToLead + " ms, of which leaderless " + gracefulGap
					+ " ms; the paused leader's run: " + first.lines().subList(firstResumedAt, first.lines().size()));
			// The server expires sessions in buckets of its tick (2 s for the embedded
			// server): a
			// session ends up to a tick after its timeout; then a second for the next to
			// hear of it
			assertThat(crashGap).as("failover after kill -9").isLessThanOrEqualTo(SESSION.toMillis() + 2000 + 1000);
			assertThat(gracefulGap).as("graceful hand-off").isLessThanOrEqualTo(1000);
		}
	}

	/**
	 * Wait until one instance but {@code others} has been granted a term since line
	 * {@code from}, and return it.
	 */
	private Instance awaitLeader(List<Instance> others, int from) {
		return await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
			for (Instance instance : this.instances) {
				if (!others.contains(instance) && instance.isLeading()) {
					return instance;
				}
			}
			return null;
		}, (found) -> found != null);
	}

	private List<Instance> leaders() throws IOException {
		List<Instance> leaders = new ArrayList<>();
		for (Instance instance : this.instances) {
			if (instance.process.isAlive() && instance.isLeading()) {
				leaders.add(instance);
			}
		}
		return leaders;
	}

	/** One application JVM, read through its output. */
	private record Instance(int id, Process process, Path log) {

		static Instance start(int id, Path dir, String connectString, String jdbcUrl) throws IOException {
			Path log = dir.resolve("instance-" + id + ".log");
			Process process = ChildJvm.start(LeaderJobApplication.class, log,
					"--zklock.connect-string=" + connectString, "--zklock.embedded.enabled=false",
					"--zklock.session-timeout=" + SESSION.toMillis() + "ms", "--spring.main.web-application-type=none",
					"--spring.main.banner-mode=off", "--spring.sql.init.mode=never",
					"--spring.datasource.url=" + jdbcUrl, "--spring.datasource.username=postgres",
					"--job.instance=" + id);
			return new Instance(id, process, log);
		}

		List<String> lines() throws IOException {
			if (!Files.exists(this.log)) {
				return List.of();
			}
			return Files.readAllLines(this.log, StandardCharsets.UTF_8)
				.stream()
				.filter((line) -> line.startsWith("LEDGER "))
				.map((line) -> line.substring("LEDGER ".length()))
				.toList();
		}

		boolean has(String prefix, int from) throws IOException {
			List<String> lines = lines();
			return lines.subList(Math.min(from, lines.size()), lines.size())
				.stream()
				.anyMatch((line) -> line.startsWith(prefix));
		}

		/** Wait for a line starting with the prefix at or after index {@code from}. */
		int awaitLine(String prefix, int from) {
			return awaitAnyLine(List.of(prefix), from);
		}

		int awaitAnyLine(List<String> prefixes, int from) {
			return await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
				List<String> lines = lines();
				for (int i = from; i < lines.size(); i++) {
					int index = i;
					if (prefixes.stream().anyMatch((prefix) -> lines.get(index).startsWith(prefix))) {
						return i;
					}
				}
				if (!this.process.isAlive()) {
					throw new IllegalStateException("Instance " + this.id + " exited: " + Files.readString(this.log));
				}
				return -1;
			}, (index) -> index >= 0);
		}

		/** Whether its last term began and has not ended. */
		boolean isLeading() throws IOException {
			String last = null;
			for (String line : lines()) {
				if (line.startsWith("GRANTED ") || line.startsWith("REVOKED ")) {
					last = line;
				}
			}
			return last != null && last.startsWith("GRANTED ") && this.process.isAlive();
		}

		long epoch() throws IOException {
			return Long.parseLong(lastLine("GRANTED ")[1]);
		}

		long grantedAt() throws IOException {
			return lastAt("GRANTED ");
		}

		/** When its last line with the prefix was printed, by its clock. */
		long lastAt(String prefix) throws IOException {
			String[] parts = lastLine(prefix);
			return Long.parseLong(parts[parts.length - 1]);
		}

		private String[] lastLine(String prefix) throws IOException {
			List<String> lines = lines();
			for (int i = lines.size() - 1; i >= 0; i--) {
				if (lines.get(i).startsWith(prefix)) {
					return lines.get(i).split(" ");
				}
			}
			throw new IllegalStateException("Instance " + this.id + " has no line " + prefix);
		}

		void signal(String signal) {
			try {
				new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start().waitFor();
			}
			catch (IOException | InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
