package dev.zklock.jdbc;

import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedWriteRefusedException;
import dev.zklock.core.LeaseState;
import dev.zklock.jdbc.FencingTokenRejectedException.HolderLock;
import dev.zklock.leadership.LeaderContext;
import dev.zklock.template.LockContext;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Fenced writes through JDBC: the database refuses the write of a holder whose lock was
 * lost and taken by another, by comparing the holders' fencing tokens. Runs on the
 * connection of the current Spring transaction, as {@link JdbcTemplate} and
 * {@code JdbcClient} do, so it fences their statements (and those of any technology that
 * shares the transaction's connection). Two shapes:
 * <ul>
 * <li>A fenced transaction ({@link #fenceTransaction()}): one statement, first in the
 * transaction, checks and raises the key's row in a fence table
 * ({@value #DEFAULT_FENCE_TABLE}). A stale holder's transaction is refused; a later
 * holder's waits at that row for an earlier one's commit, then reads what it wrote. Every
 * write after it in the transaction is fenced, whatever it writes.</li>
 * <li>A fenced record ({@link #update}, {@link #upsert}, {@link #checkWritten}): a write
 * that applies only where the record's stored token is at most the holder's, and stores
 * the holder's token. No extra statement, no transaction needed; only the record is
 * fenced (see {@link FencedTable}). A write computed from a value read before (a
 * read-modify-write) reads through {@link #read}, which raises the record's fence before
 * it reads: a plain read leaves the fence where it was, so a holder that lost its lock
 * could still write after the next holder read and before it wrote, and one of the two
 * updates would be lost.</li>
 * </ul>
 * A refused write throws {@link FencingTokenRejectedException}, which rolls back the
 * transaction it is thrown in.
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'stock:' + #sku")
 * &#064;Transactional
 * public void restock(String sku, int quantity) {
 *     this.fencing.fenceTransaction(); // the lock's key and token
 *     this.jdbcClient.sql("update stock set qty = qty + :quantity where sku = :sku")...
 * }
 * </pre>
 *
 * <p>
 * Without a token given, the token of the lock the current thread holds is used, as
 * {@link LockContext#current()} gives it inside a {@code @DistributedLock} method or a
 * {@code ZkLockTemplate} task; {@link #fenceTransaction()} fences leader work (a
 * {@code @LeaderOnly} method) with its group's name and its term's epoch
 * ({@link LeaderContext#current()}). H2 and PostgreSQL ({@link FencingDialect}), detected
 * from the connection at first use. Thread safe once configured.
 *
 * @author zk-lock
 */
public class JdbcFencing {

	/**
	 * The default fence table: {@code fence_key VARCHAR(255) PRIMARY KEY, token BIGINT
	 * NOT NULL}, created by the script {@code classpath:db/zklock/R__zklock_fence.sql}.
	 */
	public static final String DEFAULT_FENCE_TABLE = "zklock_fence";

	/**
	 * The longest fence key, as the fence table declares it.
	 */
	public static final int MAX_KEY_LENGTH = 255;

	/**
	 * How many times H2 runs an insert-or-update whose insert lost a race: once the other
	 * insert is committed, the next run finds the row.
	 */
	private static final int H2_ATTEMPTS = 3;

	private final JdbcOperations jdbc;

	private String fenceTable = DEFAULT_FENCE_TABLE;

	private volatile @Nullable FencingDialect dialect;

	/**
	 * Create an instance on a data source.
	 * @param dataSource the data source, the one the transactions use
	 */
	public JdbcFencing(DataSource dataSource) {
		this(new JdbcTemplate(Objects.requireNonNull(dataSource, "dataSource must not be null")));
	}

	/**
	 * Create an instance on a {@link JdbcTemplate} or other {@link JdbcOperations}.
	 * @param jdbc the JDBC operations, on the data source the transactions use
	 */
	public JdbcFencing(JdbcOperations jdbc) {
		this.jdbc = Objects.requireNonNull(jdbc, "jdbc must not be null");
	}

	/**
	 * Use another fence table for {@link #fenceTransaction()}, with the columns of
	 * {@value #DEFAULT_FENCE_TABLE}. Set it before use.
	 * @param fenceTable the table, optionally qualified by its schema
	 */
	public void setFenceTable(String fenceTable) {
		this.fenceTable = SqlIdentifiers.table("Fence table name", fenceTable);
	}

	/**
	 * Set the database's dialect rather than detect it at first use.
	 * @param dialect the dialect
	 */
	public void setDialect(FencingDialect dialect) {
		this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
	}

	/**
	 * Return the database's dialect, detected from the connection's metadata at first use
	 * unless set.
	 * @return the dialect
	 * @throws IllegalArgumentException if the database is neither H2 nor PostgreSQL
	 */
	public FencingDialect getDialect() {
		FencingDialect detected = this.dialect;
		if (detected == null) {
			String product = this.jdbc.execute(
					(ConnectionCallback<String>) (connection) -> connection.getMetaData().getDatabaseProductName());
			detected = FencingDialect.of(Objects.requireNonNull(product,
					DatabaseMetaData.class.getSimpleName() + ".getDatabaseProductName() returned null"));
			this.dialect = detected;
		}
		return detected;
	}

	/**
	 * Fence the current transaction with the key and token of the lock this thread holds
	 * for the running {@code @DistributedLock} method or {@code ZkLockTemplate} task; or,
	 * when it holds none but runs leader work (a {@code @LeaderOnly} method, or work
	 * started through {@code ZkLeadership.startWork}), with the group's name as the key
	 * and the term's epoch as the token, so that a former leader's transaction is refused
	 * once the next leader has fenced one. A lock the thread holds wins over its leader
	 * work: give the group and epoch to fence with the leadership then. See
	 * {@link #fenceTransaction(String, long)}.
	 * @throws FencingTokenRejectedException if a later holder of the key (a later leader
	 * of the group) has fenced a transaction already
	 * @throws IllegalStateException if no transaction is active, or this thread holds no
	 * lock and runs no leader work, or holds a lock on several keys (name one with
	 * {@link #fenceTransaction(String)})
	 */
	public void fenceTransaction() {
		LockContext context = LockContext.find();
		if (context == null) {
			LeaderContext leader = LeaderContext.find();
			if (leader != null) {
				fenceTransaction(leader.group(), leader.epoch());
				return;
			}
		}
		context = lockContext("fenceTransaction()");
		String key = context.key();
		fenceTransaction(key, context.fencingToken(key));
	}

	/**
	 * Fence the current transaction with one key of the lock this thread holds and that
	 * key's token. See {@link #fenceTransaction(String, long)}.
	 * @param key one of the keys this thread holds for the running method or task
	 * @throws FencingTokenRejectedException if a later holder of the key has fenced a
	 * transaction already
	 * @throws IllegalStateException if no transaction is active, or this thread holds no
	 * lock
	 * @throws IllegalArgumentException if the key is not one this thread holds
	 */
	public void fenceTransaction(String key) {
		fenceTransaction(key, lockContext("fenceTransaction(key)").fencingToken(key));
	}

	/**
	 * Fence the current transaction: raise the key's row in the fence table to the token,
	 * where the stored token is at most this one (the first fence of a key inserts it).
	 * Call it first in the transaction, before its reads: the row stays locked until the
	 * transaction ends, so that a later holder's fence waits for this transaction's
	 * commit and then reads what it wrote; and every write after it in the same
	 * transaction is fenced. A holder that re-enters its lock shares its token, and may
	 * fence again.
	 * @param key the lock key whose holders write, at most {@value #MAX_KEY_LENGTH}
	 * characters
	 * @param token the fencing token of this holder's lock on the key
	 * @throws FencingTokenRejectedException if a later holder of the key has fenced a
	 * transaction already: this holder's lock was lost
	 * @throws IllegalStateException if no transaction is active: alone, the statement's
	 * row lock would end with it, and the writes after it would not be fenced
	 * @throws IllegalArgumentException if the key is empty or too long
	 */
	public void fenceTransaction(String key, long token) {
		Objects.requireNonNull(key, "key must not be null");
		if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
			throw new IllegalArgumentException("Fence key '" + key + "' must have 1 to " + MAX_KEY_LENGTH
					+ " characters, as the fence table's column, but has " + key.length());
		}
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException("fenceTransaction for key '" + key + "' needs an active transaction "
					+ "(@Transactional or a TransactionTemplate): outside one, the fence row's lock would end with the "
					+ "statement, and the writes after it would not be fenced");
		}
		FencingDialect dialect = getDialect();
		int rows = run(dialect, dialect.fenceTransactionSql(this.fenceTable), key, token);
		if (rows == 0) {
			Long stored = this.jdbc.queryForObject("SELECT token FROM " + this.fenceTable + " WHERE fence_key = ?",
					Long.class, key);
			throw rejected(key, token,
					Objects.requireNonNull(stored, "the fence row that refused the write has a token"));
		}
	}

	/**
	 * Read one fenced record for a read-modify-write, with the token of the lock this
	 * thread holds. See {@link #read(FencedTable, Object, RowMapper, long)}.
	 * @param <T> the type of the mapped record
	 * @param table the fenced table
	 * @param id the record's id
	 * @param rowMapper maps the record (every column of the table)
	 * @return the record, or empty if it does not exist
	 * @throws FencingTokenRejectedException if the record holds a higher token
	 * @throws IllegalStateException if this thread holds no lock, or a lock on several
	 * keys (give the token)
	 */
	public <T> Optional<T> read(FencedTable table, Object id, RowMapper<T> rowMapper) {
		return read(table, id, rowMapper, lockContext("read(table, id, rowMapper)").fencingToken());
	}

	/**
	 * Read one fenced record for a read-modify-write: raise its fence to this token,
	 * where its stored token is at most this one, and return it, in one statement
	 * ({@link FencedTable#readSql(FencingDialect)}). From then on, a write with a lower
	 * token is refused, so that a holder that lost its lock and comes back with a value
	 * computed from an older read cannot overwrite what this holder computes from this
	 * read, even before this holder has written. Write the result with
	 * {@link #update(FencedTable, Object, Map, long) update} (or a statement checked by
	 * {@link #checkWritten}), with the same token.
	 * <p>
	 * Inside a transaction the record stays locked until the transaction ends: the next
	 * holder's fenced read or write waits for its commit, then sees what it wrote. A
	 * holder frozen inside its open transaction therefore holds the next one up; bound
	 * that with the database's timeouts (see the fencing guide). Outside a transaction,
	 * nothing waits, and the stale holder's write is refused instead.
	 * @param <T> the type of the mapped record
	 * @param table the fenced table
	 * @param id the record's id
	 * @param rowMapper maps the record (every column of the table)
	 * @param token the fencing token of this holder's lock
	 * @return the record, or empty if it does not exist
	 * @throws FencingTokenRejectedException if the record holds a higher token
	 */
	public <T> Optional<T> read(FencedTable table, Object id, RowMapper<T> rowMapper, long token) {
		Objects.requireNonNull(id, "id must not be null");
		Objects.requireNonNull(rowMapper, "rowMapper must not be null");
		List<T> records = this.jdbc.query(table.readSql(getDialect()), rowMapper, token, id, token);
		if (records.isEmpty()) {
			checkWritten(table, id, token, 0);
			return Optional.empty();
		}
		return Optional.ofNullable(records.get(0));
	}

	/**
	 * Update some columns of one fenced record with the token of the lock this thread
	 * holds. See {@link #update(FencedTable, Object, Map, long)}.
	 * @param table the fenced table
	 * @param id the record's id
	 * @param values the columns to set and their values, in the order to set them
	 * @return 1 if the record was written, 0 if it does not exist
	 * @throws FencingTokenRejectedException if the record holds a higher token
	 * @throws IllegalStateException if this thread holds no lock, or a lock on several
	 * keys (give the token)
	 */
	public int update(FencedTable table, Object id, Map<String, ? extends @Nullable Object> values) {
		return update(table, id, values, lockContext("update(table, id, values)").fencingToken());
	}

	/**
	 * Update some columns of one fenced record, where its stored token is at most this
	 * one, and store this token in it, in one statement
	 * ({@link FencedTable#updateSql(List)}). The update is fenced; the values are the
	 * caller's: values computed from a plain read are not protected by it (a stale
	 * holder's update is accepted while the next holder has read but not yet written).
	 * For a read-modify-write, read through {@link #read}, fence the transaction first
	 * ({@link #fenceTransaction()}), or compute in the statement
	 * ({@code SET qty = qty - 1}, checked by {@link #checkWritten}).
	 * @param table the fenced table
	 * @param id the record's id
	 * @param values the columns to set and their values, in the order to set them
	 * @param token the fencing token of this holder's lock
	 * @return 1 if the record was written, 0 if it does not exist
	 * @throws FencingTokenRejectedException if the record holds a higher token
	 */
	public int update(FencedTable table, Object id, Map<String, ? extends @Nullable Object> values, long token) {
		Objects.requireNonNull(id, "id must not be null");
		List<String> columns = List.copyOf(values.keySet());
		List<@Nullable Object> arguments = new ArrayList<>(values.values());
		arguments.add(token);
		arguments.add(id);
		arguments.add(token);
		int rows = this.jdbc.update(table.updateSql(columns), arguments.toArray());
		return checkWritten(table, id, token, rows);
	}

	/**
	 * Insert a fenced record with the token of the lock this thread holds, or update it.
	 * See {@link #upsert(FencedTable, Object, Map, long)}.
	 * @param table the fenced table
	 * @param id the record's id
	 * @param values the columns to set besides the id and fence, in order
	 * @throws FencingTokenRejectedException if the record holds a higher token
	 * @throws IllegalStateException if this thread holds no lock, or a lock on several
	 * keys (give the token)
	 */
	public void upsert(FencedTable table, Object id, Map<String, ? extends @Nullable Object> values) {
		upsert(table, id, values, lockContext("upsert(table, id, values)").fencingToken());
	}

	/**
	 * Insert a fenced record with this token, or, if it exists, update it as
	 * {@link #update(FencedTable, Object, Map, long)} does, in one statement
	 * ({@link FencedTable#upsertSql(FencingDialect, List)}): a stale holder cannot insert
	 * a record that a later holder inserted, since it then finds the later token. The id
	 * column needs a primary key or unique constraint.
	 * @param table the fenced table
	 * @param id the record's id
	 * @param values the columns to set besides the id and fence, in order
	 * @param token the fencing token of this holder's lock
	 * @throws FencingTokenRejectedException if the record holds a higher token
	 */
	public void upsert(FencedTable table, Object id, Map<String, ? extends @Nullable Object> values, long token) {
		Objects.requireNonNull(id, "id must not be null");
		List<String> columns = List.copyOf(values.keySet());
		List<@Nullable Object> arguments = new ArrayList<>();
		arguments.add(id);
		arguments.addAll(values.values());
		arguments.add(token);
		FencingDialect dialect = getDialect();
		int rows = run(dialect, table.upsertSql(dialect, columns), arguments.toArray());
		if (rows == 0 && checkWritten(table, id, token, rows) == 0) {
			throw new IllegalStateException("Fenced upsert of " + table.describe(id)
					+ " changed nothing though the record holds no higher token");
		}
	}

	/**
	 * Check the row count of a fenced write to one record run by other means, such as a
	 * {@code JdbcClient} statement of the form {@code UPDATE stock SET qty = qty - 1,
	 * fence = :token WHERE sku = :sku AND fence <= :token}: when it changed nothing, read
	 * the record's stored token and throw if it is higher than this one.
	 * @param table the fenced table
	 * @param id the record's id
	 * @param token the fencing token the write was made with
	 * @param rows the rows the write changed
	 * @return the rows, 0 if the record does not exist or the write's other conditions
	 * excluded it
	 * @throws FencingTokenRejectedException if the write changed nothing and the record
	 * holds a higher token
	 * @throws IllegalStateException if the record's fence is {@code NULL} (declare the
	 * column {@code NOT NULL DEFAULT 0})
	 */
	public int checkWritten(FencedTable table, Object id, long token, int rows) {
		if (rows > 0) {
			return rows;
		}
		List<Long> stored = this.jdbc.queryForList(table.fenceSql(), Long.class, id);
		if (stored.isEmpty()) {
			return 0;
		}
		// A NULL column reads as a null element
		@Nullable Long fence = stored.get(0);
		if (fence == null) {
			throw new IllegalStateException("Record " + table.describe(id) + " has no fence (its " + table.fenceColumn()
					+ " is NULL), so no fenced write can apply: declare the column BIGINT DEFAULT 0 NOT NULL");
		}
		if (fence > token) {
			throw rejected(table.describe(id), token, fence);
		}
		return 0;
	}

	/**
	 * Run an insert-or-update. On H2 an insert that lost a race to another transaction's
	 * insert of the same key fails with a duplicate key once that transaction commits; H2
	 * rolls back only that statement, so it runs again and finds the row. PostgreSQL's
	 * statement waits and decides in one go.
	 */
	private int run(FencingDialect dialect, String sql, Object... arguments) {
		for (int attempt = 1;; attempt++) {
			try {
				return this.jdbc.update(sql, arguments);
			}
			catch (DuplicateKeyException ex) {
				if (dialect != FencingDialect.H2 || attempt == H2_ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	/**
	 * The refusal of a write with a token, telling a lost lock from a misuse: when the
	 * token is the one of a lock this thread holds and believes held, ZooKeeper is asked
	 * (one check, on this rare path) whether it still is, since a paused holder may not
	 * have heard yet that its session expired.
	 */
	private static FencingTokenRejectedException rejected(String what, long token, long stored) {
		return new FencingTokenRejectedException(what, token, stored, holderLock(token));
	}

	private static HolderLock holderLock(long token) {
		LockContext context = LockContext.find();
		if (context == null || context.keys().stream().noneMatch((key) -> context.fencingToken(key) == token)) {
			return HolderLock.UNKNOWN;
		}
		LeaseState state = context.leaseState();
		if (state != LeaseState.HELD) {
			// Suspended: a check would wait for the connection; lost: known already
			return (state == LeaseState.LOST) ? HolderLock.LOST : HolderLock.UNKNOWN;
		}
		try {
			context.guardedTransaction().forOperations(List.of());
			return HolderLock.HELD;
		}
		catch (GuardedWriteRefusedException | KeeperException.SessionExpiredException ex) {
			return HolderLock.LOST;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return HolderLock.UNKNOWN;
		}
		catch (Exception ex) {
			// Connection lost, or a context that cannot check (a lease given to the
			// template): the refusal stands, its reason is not known
			return HolderLock.UNKNOWN;
		}
	}

	/**
	 * The context of the lock the current thread holds, whose token the helpers use when
	 * none is given: the one place they read it.
	 */
	private static LockContext lockContext(String call) {
		LockContext context = LockContext.find();
		if (context == null) {
			throw new IllegalStateException("JdbcFencing." + call + " takes the fencing token of the lock this "
					+ "thread holds" + (call.equals("fenceTransaction()") ? " (or the epoch of its leader work)" : "")
					+ ", but it holds none: call it inside a @DistributedLock method or ZkLockTemplate task"
					+ (call.equals("fenceTransaction()") ? ", or a @LeaderOnly method," : "") + " or give the token");
		}
		return context;
	}

}
