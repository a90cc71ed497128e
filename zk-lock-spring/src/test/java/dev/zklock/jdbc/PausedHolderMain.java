package dev.zklock.jdbc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

import dev.zklock.template.LockContext;
import dev.zklock.core.LockLostException;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One holder of {@link PausedHolderAcrossJvmsTests}, in a JVM of its own: on each
 * {@code hold} line from its standard input, it takes the lock of each mode's record,
 * reads the record, says so, and waits for a {@code go} line before it writes the value
 * it read plus one, each mode its own way: when told to park, in every mode; otherwise
 * only in the modes whose next holder reads before the stale write
 * ({@link Mode#nextHolderReadsFirst()}), the others writing at once. It reports on
 * standard output, in lines that start with {@code @@}.
 */
public final class PausedHolderMain {

	static final FencedTable RECORD = FencedTable.of("record", "id");

	/**
	 * How each record is written.
	 */
	enum Mode {

		/** Read, then a plain update: what happens without fencing. */
		UNFENCED,

		/** Read, then a fenced update of the record. */
		RECORD,

		/** Fence the transaction first, then read, then a plain update. */
		TRANSACTION,

		/**
		 * A plain read, then a fenced update, each statement on its own (no transaction);
		 * the next holder reads before the stale write and writes after it: the fenced
		 * update alone accepts both writes.
		 */
		READ_THEN_UPDATE,

		/**
		 * The same interleaving through a fenced read, which raises the record's fence
		 * before it reads: the stale write is refused.
		 */
		FENCED_READ;

		String key() {
			return "paused:" + name().toLowerCase(Locale.ROOT);
		}

		/**
		 * Whether the next holder reads before the stale holder's late write and writes
		 * after it: the writer waits for a {@code go} between its read and its write.
		 */
		boolean nextHolderReadsFirst() {
			return this == READ_THEN_UPDATE || this == FENCED_READ;
		}

	}

	private PausedHolderMain() {
	}

	/**
	 * Run a holder.
	 * @param args the ZooKeeper connect string, the session timeout in ms, the JDBC URL,
	 * and {@code park} or {@code write} (whether to wait for {@code go} before writing)
	 */
	public static void main(String[] args) throws Exception {
		String connectString = args[0];
		int sessionTimeout = Integer.parseInt(args[1]);
		String url = args[2];
		boolean park = args[3].equals("park");
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.postgresql.Driver(), url);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		JdbcFencing fencing = new JdbcFencing(jdbc);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, sessionTimeout, 2000,
				new RetryOneTime(100)); ZkLockRegistry registry = new ZkLockRegistry(client)) {
			client.start();
			ZkLockTemplate template = new ZkLockTemplate(registry, ObservationRegistry.NOOP);
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			say("ready");
			String line;
			while ((line = in.readLine()) != null && !line.equals("exit")) {
				if (!line.equals("hold")) {
					continue;
				}
				// A session that expired while paused is replaced by a new one
				if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
					say("FAILED not connected");
					continue;
				}
				// The paused holder waits before every write, the writer before those of
				// the
				// modes whose next holder reads first
				CountDownLatch go = new CountDownLatch(1);
				List<Thread> threads = new ArrayList<>();
				for (Mode mode : Mode.values()) {
					CountDownLatch before = (park || mode.nextHolderReadsFirst()) ? go : new CountDownLatch(0);
					Thread thread = new Thread(() -> hold(mode, template, transactions, jdbc, fencing, before),
							"holder-" + mode);
					thread.start();
					threads.add(thread);
				}
				line = in.readLine();
				if (!"go".equals(line)) {
					say("FAILED expected go, got " + line);
				}
				go.countDown();
				for (Thread thread : threads) {
					thread.join(60_000);
				}
				say("done");
			}
		}
	}

	private static void hold(Mode mode, ZkLockTemplate template, TransactionTemplate transactions, JdbcTemplate jdbc,
			JdbcFencing fencing, CountDownLatch go) {
		long[] token = new long[1];
		try {
			template.execute("paused", mode.key(), Duration.ofSeconds(30), () -> {
				token[0] = LockContext.current().fencingToken();
				try {
					if (mode.nextHolderReadsFirst()) {
						say("WROTE " + mode + " " + token[0] + " " + readThenWrite(mode, jdbc, fencing, go));
						return null;
					}
					int written = transactions.execute((status) -> {
						if (mode == Mode.TRANSACTION) {
							fencing.fenceTransaction();
						}
						int value = jdbc.queryForObject("SELECT value FROM record WHERE id = ?", Integer.class,
								mode.name());
						say("READ " + mode + " " + token[0] + " " + value);
						await(go);
						if (mode == Mode.RECORD) {
							fencing.update(RECORD, mode.name(), Map.of("value", value + 1));
						}
						else {
							jdbc.update("UPDATE record SET value = ? WHERE id = ?", value + 1, mode.name());
						}
						return value + 1;
					});
					say("WROTE " + mode + " " + token[0] + " " + written);
				}
				catch (FencingTokenRejectedException ex) {
					say("REFUSED " + mode + " " + ex.getToken() + " " + ex.getStoredToken() + " " + ex.getHolderLock());
				}
				return null;
			});
		}
		catch (LockLostException ex) {
			// Heard only at the release, after the write: what this issue is about
			say("LOST " + mode + " " + token[0]);
		}
		catch (RuntimeException ex) {
			say("FAILED " + mode + " " + ex);
		}
	}

	/**
	 * A read-modify-write with no transaction, each statement committed on its own: the
	 * read (plain or fenced), the wait, the fenced update.
	 */
	private static int readThenWrite(Mode mode, JdbcTemplate jdbc, JdbcFencing fencing, CountDownLatch go) {
		int value = (mode == Mode.FENCED_READ)
				? fencing.read(RECORD, mode.name(), (rs, row) -> rs.getInt("value")).orElseThrow()
				: jdbc.queryForObject("SELECT value FROM record WHERE id = ?", Integer.class, mode.name());
		say("READ " + mode + " " + LockContext.current().fencingToken() + " " + value);
		await(go);
		fencing.update(RECORD, mode.name(), Map.of("value", value + 1));
		return value + 1;
	}

	private static void await(CountDownLatch go) {
		try {
			if (!go.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("No go in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static synchronized void say(String line) {
		System.out.println("@@ " + line);
		System.out.flush();
	}

}
