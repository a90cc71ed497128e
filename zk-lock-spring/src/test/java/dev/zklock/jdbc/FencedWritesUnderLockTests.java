package dev.zklock.jdbc;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.EnableDistributedLocks;
import dev.zklock.template.LockContext;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLock;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.jdbc.FencingTokenRejectedException.HolderLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.leadership.LeaderWork;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The token reaches the fenced writes without plumbing: from the lock of a
 * {@code @DistributedLock} method that is also {@code @Transactional} (the lock taken
 * around the transaction), and of a {@code ZkLockTemplate} task around a
 * {@code TransactionTemplate}, on a real ZooKeeper and H2.
 */
@Timeout(120)
class FencedWritesUnderLockTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private DataSource dataSource;

	private JdbcTemplate jdbc;

	@BeforeEach
	void createSchema() {
		this.dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:locked-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("CREATE TABLE zklock_fence (fence_key VARCHAR(255) PRIMARY KEY, token BIGINT NOT NULL)");
		this.jdbc.execute("CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, qty INT NOT NULL,"
				+ " fence BIGINT DEFAULT 0 NOT NULL)");
		this.jdbc.execute("CREATE TABLE orders (sku VARCHAR(64) NOT NULL, qty INT NOT NULL)");
		this.jdbc.update("INSERT INTO stock (sku, qty) VALUES ('apple', 10)");
	}

	@Test
	void distributedLockAndTransactionalMethodFencesWithItsLocksToken() throws Exception {
		try (AnnotationConfigApplicationContext context = context()) {
			Shop shop = context.getBean(Shop.class);
			shop.order("apple");
			long token = shop.lastToken();
			assertThat(token).isPositive();
			assertThat(fence("stock:apple")).isEqualTo(token);
			assertThat(this.jdbc.queryForObject("SELECT fence FROM stock WHERE sku = 'apple'", Long.class))
				.isEqualTo(token);
			// A later holder (another JVM) has written: this holder's token is stale now
			this.jdbc.update("UPDATE zklock_fence SET token = ? WHERE fence_key = 'stock:apple'", Long.MAX_VALUE);
			assertThatExceptionOfType(FencingTokenRejectedException.class).isThrownBy(() -> shop.order("apple"))
				.satisfies((ex) -> {
					assertThat(ex.getKey()).isEqualTo("stock:apple");
					assertThat(ex.getToken()).isEqualTo(shop.lastToken());
					assertThat(ex.getStoredToken()).isEqualTo(Long.MAX_VALUE);
				});
			// The refused order left nothing: one order, the stock of one
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM orders", Integer.class)).isOne();
			assertThat(this.jdbc.queryForObject("SELECT qty FROM stock WHERE sku = 'apple'", Integer.class))
				.isEqualTo(9);
		}
	}

	@Test
	void leaderWorkFencesATransactionWithItsGroupAndEpoch() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLeadership leadership = new ZkLeadership(registry);
		leadership.addGroup("billing");
		leadership.start();
		try {
			LeaderCandidate candidate = leadership.candidate("billing");
			assertThat(candidate).isNotNull();
			LeaderTerm term = candidate.awaitLeadership(Duration.ofSeconds(20));
			assertThat(term).isNotNull();
			TransactionTemplate transactions = new TransactionTemplate(
					new DataSourceTransactionManager(this.dataSource));
			JdbcFencing fencing = new JdbcFencing(this.dataSource);
			try (LeaderWork work = leadership.startWork("billing")) {
				assertThat(work).isNotNull();
				transactions.executeWithoutResult((status) -> fencing.fenceTransaction());
			}
			assertThat(fence("billing")).isEqualTo(term.epoch());
			// A later leader (another JVM) has fenced: this term's transactions are
			// refused
			this.jdbc.update("UPDATE zklock_fence SET token = ? WHERE fence_key = 'billing'", Long.MAX_VALUE);
			try (LeaderWork work = leadership.startWork("billing")) {
				assertThat(work).isNotNull();
				assertThatExceptionOfType(FencingTokenRejectedException.class)
					.isThrownBy(() -> transactions.executeWithoutResult((status) -> fencing.fenceTransaction()))
					.satisfies((ex) -> assertThat(ex.getToken()).isEqualTo(term.epoch()));
			}
		}
		finally {
			leadership.stop();
			registry.close();
		}
	}

	@Test
	void templateTaskAroundATransactionFencesARecordWithItsLocksToken() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLockTemplate template = new ZkLockTemplate(registry, ObservationRegistry.NOOP);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		JdbcFencing fencing = new JdbcFencing(this.dataSource);
		long token = template.execute("stock", "stock:apple", null, () -> transactions.execute((status) -> {
			fencing.update(AbstractJdbcFencingTests.STOCK, "apple", Map.of("qty", 9));
			return LockContext.current().fencingToken();
		}));
		assertThat(this.jdbc.queryForObject("SELECT fence FROM stock WHERE sku = 'apple'", Long.class))
			.isEqualTo(token);
		// A later holder (another JVM) has written
		this.jdbc.update("UPDATE stock SET fence = ? WHERE sku = 'apple'", Long.MAX_VALUE);
		assertThatExceptionOfType(FencingTokenRejectedException.class)
			.isThrownBy(() -> template.execute("stock", "stock:apple", null, () -> transactions.execute((status) -> {
				this.jdbc.update("INSERT INTO orders (sku, qty) VALUES ('apple', 1)");
				return fencing.update(AbstractJdbcFencingTests.STOCK, "apple", Map.of("qty", 8));
			})))
			.satisfies((ex) -> assertThat(ex.getStoredToken()).isEqualTo(Long.MAX_VALUE));
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM orders", Integer.class)).isZero();
	}

	@Test
	void templateTaskReadsThroughAFencedReadWithItsLocksToken() throws Exception {
		ZkLockTemplate template = new ZkLockTemplate(this.zk.newRegistry(), ObservationRegistry.NOOP);
		JdbcFencing fencing = new JdbcFencing(this.dataSource);
		long token = template.execute("stock", "stock:apple", null, () -> {
			int qty = fencing.read(AbstractJdbcFencingTests.STOCK, "apple", AbstractJdbcFencingTests.QTY).orElseThrow();
			assertThat(fenceOfApple()).as("raised by the read, before any write")
				.isEqualTo(LockContext.current().fencingToken());
			fencing.update(AbstractJdbcFencingTests.STOCK, "apple", Map.of("qty", qty - 1));
			return LockContext.current().fencingToken();
		});
		assertThat(fenceOfApple()).isEqualTo(token);
		assertThat(this.jdbc.queryForObject("SELECT qty FROM stock WHERE sku = 'apple'", Integer.class)).isEqualTo(9);
	}

	/**
	 * A holder that still holds its lock is refused because a holder of another key wrote
	 * the record with its higher token: a misuse, which the refusal names as such, not as
	 * a lost lock.
	 */
	@Test
	void aLiveHolderRefusedBecauseOfAnotherKeysTokenIsToldItIsAMisuse() throws Exception {
		ZkLockTemplate template = new ZkLockTemplate(this.zk.newRegistry(), ObservationRegistry.NOOP);
		ZkLockRegistry otherInstance = this.zk.newRegistry();
		JdbcFencing fencing = new JdbcFencing(this.dataSource);
		FencingTokenRejectedException refused = template.execute("stock", "stock:apple", null, () -> {
			// Another instance, under a lock of another key taken later: a higher token
			CompletableFuture.runAsync(() -> {
				ZkLock other = otherInstance.obtain("pricing:apple");
				other.lock();
				try {
					fencing.update(AbstractJdbcFencingTests.STOCK, "apple", Map.of("qty", 5), other.fencingToken());
				}
				finally {
					other.unlock();
				}
			}, TestThreads.EXECUTOR).get(20, TimeUnit.SECONDS);
			return catchThrowableOfType(FencingTokenRejectedException.class,
					() -> fencing.update(AbstractJdbcFencingTests.STOCK, "apple", Map.of("qty", 9)));
		});
		assertThat(refused).isNotNull();
		assertThat(refused.getHolderLock()).isEqualTo(HolderLock.HELD);
		assertThat(refused).hasMessageContaining("still holds its lock")
			.hasMessageContaining("a holder of another key")
			.hasMessageNotContaining("lock was lost");
	}

	/**
	 * A holder whose node another client deleted, and that has not heard of it, is told
	 * its lock was lost: ZooKeeper is asked.
	 */
	@Test
	void aHolderWhoseNodeWasDeletedIsToldItsLockWasLost() throws Exception {
		ZkLockTemplate template = new ZkLockTemplate(this.zk.newRegistry(), ObservationRegistry.NOOP);
		JdbcFencing fencing = new JdbcFencing(this.dataSource);
		CuratorFramework other = this.zk.newClient();
		AtomicReference<FencingTokenRejectedException> refused = new AtomicReference<>();
		try {
			template.execute("stock", "stock:apple", null, () -> {
				for (String node : this.zk.children("/locks/stock:apple")) {
					other.delete().forPath("/locks/stock:apple/" + node);
				}
				assertThat(LockContext.current().leaseState()).as("not heard of yet").isEqualTo(LeaseState.HELD);
				// The later holder has written
				this.jdbc.update("UPDATE stock SET fence = ? WHERE sku = 'apple'", Long.MAX_VALUE);
				refused.set(catchThrowableOfType(FencingTokenRejectedException.class,
						() -> fencing.update(AbstractJdbcFencingTests.STOCK, "apple", Map.of("qty", 9))));
				return null;
			});
		}
		catch (LockLostException ex) {
			// Found at the release, after the task
		}
		assertThat(refused.get()).isNotNull();
		assertThat(refused.get().getHolderLock()).isEqualTo(HolderLock.LOST);
		assertThat(refused.get()).hasMessageContaining("this holder's lock was lost");
	}

	private long fenceOfApple() {
		return this.jdbc.queryForObject("SELECT fence FROM stock WHERE sku = 'apple'", Long.class);
	}

	private AnnotationConfigApplicationContext context() throws Exception {
		CuratorFramework client = this.zk.newClient();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(CuratorFramework.class, () -> client);
		context.registerBean(DataSource.class, () -> this.dataSource);
		context.register(ShopConfiguration.class);
		context.refresh();
		return context;
	}

	private long fence(String key) {
		return this.jdbc.queryForObject("SELECT token FROM zklock_fence WHERE fence_key = ?", Long.class, key);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	@EnableTransactionManagement(proxyTargetClass = true)
	static class ShopConfiguration {

		@Bean(destroyMethod = "close")
		ZkLockRegistry zkLockRegistry(CuratorFramework client) {
			return new ZkLockRegistry(client);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		JdbcFencing jdbcFencing(DataSource dataSource) {
			return new JdbcFencing(dataSource);
		}

		@Bean
		Shop shop(JdbcFencing fencing, DataSource dataSource) {
			return new Shop(fencing, new JdbcTemplate(dataSource));
		}

	}

	static class Shop {

		private final AtomicLong lastToken = new AtomicLong();

		private final JdbcFencing fencing;

		private final JdbcTemplate jdbc;

		Shop(JdbcFencing fencing, JdbcTemplate jdbc) {
			this.fencing = fencing;
			this.jdbc = jdbc;
		}

		public long lastToken() {
			return this.lastToken.get();
		}

		@DistributedLock(key = "'stock:' + #sku")
		@Transactional
		public void order(String sku) {
			this.lastToken.set(LockContext.current().fencingToken());
			this.fencing.fenceTransaction();
			int qty = this.jdbc.queryForObject("SELECT qty FROM stock WHERE sku = ?", Integer.class, sku);
			this.jdbc.update("INSERT INTO orders (sku, qty) VALUES (?, 1)", sku);
			this.fencing.update(AbstractJdbcFencingTests.STOCK, sku, Map.of("qty", qty - 1));
		}

	}

}
