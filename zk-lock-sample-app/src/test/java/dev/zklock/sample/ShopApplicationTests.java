package dev.zklock.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatusCode;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample on a random port with its embedded ZooKeeper on a free port.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "zklock.embedded.port=0",
				"spring.datasource.url=jdbc:h2:mem:shop-test;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000" })
@Timeout(120)
class ShopApplicationTests {

	private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {
	};

	/**
	 * How long to wait for anything that should take well under a second: generous, as CI
	 * runs these tests on loaded two-core machines.
	 */
	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	@Value("${local.server.port}")
	int port;

	private RestClient client() {
		return RestClient.builder()
			.baseUrl("http://localhost:" + this.port)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
	}

	@Autowired
	ZkLockRegistry registry;

	@Autowired
	CuratorFramework curator;

	@Autowired
	JdbcClient jdbc;

	@Test
	@SuppressWarnings("unchecked")
	void theOnlyInstanceLeadsTheRestockJobWhichTopsUpLowStockWithItsEpoch() {
		RestClient client = client();
		this.jdbc.sql("UPDATE stock SET qty = 3 WHERE sku = 'apple'").update();
		// The job runs every 10 s by default, and at once when the term begins
		await().atMost(LONG_WAIT).untilAsserted(() -> assertThat(stockLeft(client, "apple")).isEqualTo(100));
		Map<String, Object> view = client.get().uri("/demo/leader").retrieve().body(JSON);
		assertThat(view).containsEntry("group", "restock").containsEntry("thisInstanceLeads", true);
		long epoch = ((Number) view.get("epoch")).longValue();
		List<Map<String, Object>> members = (List<Map<String, Object>>) view.get("members");
		assertThat(members).singleElement().satisfies((member) -> {
			assertThat(member).containsEntry("leader", true);
			assertThat(((Number) member.get("epoch")).longValue()).isEqualTo(epoch);
		});
		assertThat(this.jdbc.sql("SELECT MAX(epoch) FROM restock").query(Long.class).single()).isEqualTo(epoch);
		Map<String, Object> leaders = client.get().uri("/actuator/zkleaders").retrieve().body(JSON);
		assertThat((List<Map<String, Object>>) leaders.get("groups")).anySatisfy((group) -> {
			assertThat(group).containsEntry("name", "restock");
			assertThat(((Map<String, Object>) group.get("leader")).get("epoch")).isEqualTo(view.get("epoch"));
		});
	}

	@Test
	@SuppressWarnings("unchecked")
	void healthIsUpWithZkLockDetails() {
		Map<String, Object> health = client().get().uri("/actuator/health").retrieve().body(JSON);
		assertThat(health).containsEntry("status", "UP");
		Map<String, Object> zklock = (Map<String, Object>) ((Map<String, Object>) health.get("components"))
			.get("zklock");
		assertThat(zklock).containsEntry("status", "UP");
		assertThat((Map<String, Object>) zklock.get("details")).containsEntry("state", "CONNECTED")
			.containsKeys("connectString", "sessionId", "sessionTimeout", "sinceLastChange", "heldLocks");
	}

	@Test
	@SuppressWarnings("unchecked")
	void zklocksEndpointShowsLocalHoldersAndParticipantsAcrossJvms() throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		// Futures, so that a failure in either spawned thread fails this test rather than
		// the thread
		FutureTask<Void> holding = new FutureTask<>(() -> {
			ZkLock lock = this.registry.obtain("stock:kiwi");
			lock.lock();
			try {
				held.countDown();
				release.await(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);
			}
			finally {
				lock.unlock();
			}
			return null;
		});
		new Thread(holding, "kiwi-holder").start();
		try {
			await().atMost(LONG_WAIT).until(() -> held.getCount() == 0 || holding.isDone());
			assertThat(holding).as("kiwi-holder ended before it held the lock").isNotDone();
			// Another JVM's participant: its own session, waiting behind us
			try (CuratorFramework other = CuratorFrameworkFactory
				.newClient(this.curator.getZookeeperClient().getCurrentConnectionString(), new RetryOneTime(100))) {
				other.start();
				InterProcessMutex mutex = new InterProcessMutex(other, "/locks/stock:kiwi");
				FutureTask<Boolean> waiting = new FutureTask<>(() -> {
					if (!mutex.acquire(2 * LONG_WAIT.toSeconds(), TimeUnit.SECONDS)) {
						return false;
					}
					mutex.release();
					return true;
				});
				new Thread(waiting, "kiwi-other-jvm").start();
				AtomicReference<List<Map<String, Object>>> participants = new AtomicReference<>();
				await().atMost(LONG_WAIT).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
					Map<String, Object> body = client().get().uri("/actuator/zklocks/stock:kiwi").retrieve().body(JSON);
					assertThat(body).isNotNull();
					List<Map<String, Object>> current = (List<Map<String, Object>>) body.get("participants");
					assertThat(current).as("participants (other JVM's waiter: %s)", waiting).hasSize(2);
					participants.set(current);
				});
				assertThat(participants.get().get(0)).containsEntry("holder", true);
				assertThat((String) participants.get().get(0).get("owner")).contains("@");
				assertThat(participants.get().get(1)).containsEntry("holder", false);
				assertThat(((Number) participants.get().get(0).get("fencingToken")).longValue())
					.isLessThan(((Number) participants.get().get(1).get("fencingToken")).longValue());
				Map<String, Object> local = client().get().uri("/actuator/zklocks").retrieve().body(JSON);
				assertThat((List<Map<String, Object>>) local.get("locks")).anySatisfy((lock) -> {
					assertThat(lock).containsEntry("key", "stock:kiwi")
						.containsEntry("path", "/locks/stock:kiwi")
						.containsEntry("held", true)
						.containsEntry("holderThread", "kiwi-holder")
						.containsEntry("leaseState", "HELD")
						.containsKeys("heldSince", "fencingToken", "waiters");
				});
				release.countDown();
				holding.get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);
				assertThat(waiting.get(2 * LONG_WAIT.toSeconds(), TimeUnit.SECONDS))
					.as("the other JVM's waiter got the lock once we released it")
					.isTrue();
			}
		}
		finally {
			// Also on failure: the holder must not keep the lock for the other tests
			release.countDown();
		}
	}

	@Test
	void prometheusShowsLockMetrics() {
		client().post()
			.uri("/orders")
			.body(Map.of("sku", "apple", "qty", 1))
			.header("Content-Type", "application/json")
			.retrieve()
			.toBodilessEntity();
		String prometheus = client().get().uri("/actuator/prometheus").retrieve().body(String.class);
		assertThat(prometheus).contains("lock_name=\"stock\",outcome=\"acquired\"")
			.containsPattern("zklock_acquire_seconds_count\\{[^}]*outcome=\"acquired\"")
			.containsPattern("zklock_held_seconds_count\\{[^}]*lock_name=\"stock\"")
			.contains("zklock_active ")
			.contains("zklock_waiting ")
			.contains("zklock_handoffs_total");
	}

	@Test
	void concurrentOrdersNeverOversell() throws Exception {
		RestClient client = client();
		client.put().uri("/stock/pear?qty=20").retrieve().toBodilessEntity();
		int orders = 50;
		ExecutorService executor = Executors.newFixedThreadPool(orders);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> statuses = new ArrayList<>();
			for (int i = 0; i < orders; i++) {
				statuses.add(executor.submit(() -> {
					start.await();
					return client.post()
						.uri("/orders")
						.body(Map.of("sku", "pear", "qty", 1))
						.header("Content-Type", "application/json")
						.retrieve()
						.toBodilessEntity()
						.getStatusCode()
						.value();
				}));
			}
			start.countDown();
			int accepted = 0;
			int rejected = 0;
			for (Future<Integer> status : statuses) {
				int code = status.get(60, TimeUnit.SECONDS);
				if (code == 200) {
					accepted++;
				}
				else if (code == 409) {
					rejected++;
				}
			}
			assertThat(accepted).isEqualTo(20);
			assertThat(rejected).isEqualTo(30);
		}
		finally {
			executor.shutdownNow();
		}
		Map<String, Object> stock = client.get().uri("/stock/pear").retrieve().body(JSON);
		assertThat(stock).containsEntry("qty", 0);
	}

	@Test
	@SuppressWarnings("unchecked")
	void oversellDemoReportIsConsistent() {
		RestClient client = client();
		Map<String, Object> report = client.post().uri("/demo/oversell?stock=20&orders=50").retrieve().body(JSON);
		// The report against what the database holds afterwards: rows in the order table
		// (one per accepted one-unit order) and the stock left, read through the shop's
		// own API
		Map<String, Object> locked = (Map<String, Object>) report.get("withLock");
		assertThat(orderRows("demo-locked")).isEqualTo(20);
		assertThat(stockLeft(client, "demo-locked")).isZero();
		assertThat(locked).containsEntry("accepted", 20)
			.containsEntry("sold", 20)
			.containsEntry("remaining", 0)
			.containsEntry("oversold", 0);
		Map<String, Object> unlocked = (Map<String, Object>) report.get("withoutLock");
		int rows = orderRows("demo-unlocked");
		int left = stockLeft(client, "demo-unlocked");
		assertThat(unlocked).containsEntry("accepted", rows)
			.containsEntry("sold", rows)
			.containsEntry("remaining", left);
		assertThat(left).isBetween(0, 20);
		// Each sale writes one less than the stock it read, so what left the stock is a
		// chain of sales, each overwriting the one before; racing sales outside that
		// chain are lost updates
		int lostUpdates = rows - (20 - left);
		assertThat(lostUpdates).isNotNegative();
		// Oversold units are sales beyond the stock, and each of them is a lost update
		assertThat((Integer) unlocked.get("oversold")).isBetween(Math.max(0, rows - 20), lostUpdates);
	}

	@Test
	@SuppressWarnings("unchecked")
	void pausedHolderDemoRefusesEveryStaleWriteOnlyWhereTheReadIsFencedToo() {
		RestClient client = client();
		Map<String, Object> report = client.post().uri("/demo/paused-holder?rounds=3").retrieve().body(JSON);
		assertThat(report).containsEntry("rounds", 3);
		Map<String, Object> writesFirst = (Map<String, Object>) report.get("newerHolderWritesFirst");
		Map<String, Object> readsFirst = (Map<String, Object>) report.get("newerHolderReadsFirst");
		assertRun(writesFirst, "unfenced", 3, 0, 3);
		assertRun(writesFirst, "fencedUpdate", 0, 3, 0);
		assertRun(writesFirst, "fencedRead", 0, 3, 0);
		// The next holder read before the stale write: a fenced update alone accepts it
		assertRun(readsFirst, "unfenced", 3, 0, 3);
		assertRun(readsFirst, "fencedUpdate", 3, 0, 3);
		assertRun(readsFirst, "fencedRead", 0, 3, 0);
		// The last round, as the database holds it: refused, the second holder's order
		// alone; accepted, both orders and the stock of one
		assertThat(orderRows("demo-paused-reads-first-fenced-read")).isOne();
		assertThat(stockLeft(client, "demo-paused-reads-first-fenced-read")).isEqualTo(99);
		assertThat(orderRows("demo-paused-reads-first-fenced-update")).isEqualTo(2);
		assertThat(stockLeft(client, "demo-paused-reads-first-fenced-update")).isEqualTo(99);
	}

	@SuppressWarnings("unchecked")
	private static void assertRun(Map<String, Object> interleaving, String run, int accepted, int refused, int lost) {
		assertThat((Map<String, Object>) interleaving.get(run)).as(run)
			.containsEntry("staleWritesAccepted", accepted)
			.containsEntry("staleWritesRefused", refused)
			.containsEntry("lostUpdates", lost);
	}

	private int orderRows(String sku) {
		return this.jdbc.sql("select count(*) from orders where sku = :sku")
			.param("sku", sku)
			.query(Integer.class)
			.single();
	}

	private static int stockLeft(RestClient client, String sku) {
		Map<String, Object> stock = client.get().uri("/stock/{sku}", sku).retrieve().body(JSON);
		assertThat(stock).containsEntry("sku", sku).containsKey("qty");
		return (Integer) stock.get("qty");
	}

}
