package dev.zklock.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on a random port with its embedded ZooKeeper on a free port.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "zklock.embedded.port=0", "spring.datasource.url=jdbc:h2:mem:shop-test;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000" })
@Timeout(120)
class ShopApplicationTests {

	private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {
	};

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

	@Test
	@SuppressWarnings("unchecked")
	void healthIsUpWithZkLockDetails() {
		Map<String, Object> health = client().get().uri("/actuator/health").retrieve().body(JSON);
		assertThat(health).containsEntry("status", "UP");
		Map<String, Object> zklock = (Map<String, Object>) ((Map<String, Object>) health.get("components")).get("zklock");
		assertThat(zklock).containsEntry("status", "UP");
		assertThat((Map<String, Object>) zklock.get("details")).containsEntry("state", "CONNECTED")
			.containsKeys("connectString", "sessionId", "sessionTimeout", "sinceLastChange", "heldLocks");
	}

	@Test
	@SuppressWarnings("unchecked")
	void zklocksEndpointShowsLocalHoldersAndParticipantsAcrossJvms() throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread holder = new Thread(() -> {
			ZkLock lock = this.registry.obtain("stock:kiwi");
			lock.lock();
			try {
				held.countDown();
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock.unlock();
			}
		}, "kiwi-holder");
		holder.start();
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		// Another JVM's participant: its own session, waiting behind us
		try (CuratorFramework other = CuratorFrameworkFactory.newClient(
				this.curator.getZookeeperClient().getCurrentConnectionString(), new RetryOneTime(100))) {
			other.start();
			InterProcessMutex mutex = new InterProcessMutex(other, "/locks/stock:kiwi");
			Thread waiter = new Thread(() -> {
				try {
					if (mutex.acquire(20, TimeUnit.SECONDS)) {
						mutex.release();
					}
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			waiter.start();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			List<Map<String, Object>> participants = List.of();
			while (participants.size() < 2 && System.nanoTime() < deadline) {
				Map<String, Object> body = client().get().uri("/actuator/zklocks/stock:kiwi").retrieve().body(JSON);
				participants = (List<Map<String, Object>>) body.get("participants");
				Thread.sleep(50);
			}
			assertThat(participants).hasSize(2);
			assertThat(participants.get(0)).containsEntry("holder", true);
			assertThat((String) participants.get(0).get("owner")).contains("@");
			assertThat(participants.get(1)).containsEntry("holder", false);
			assertThat((Long) ((Number) participants.get(0).get("fencingToken")).longValue())
				.isLessThan(((Number) participants.get(1).get("fencingToken")).longValue());
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
			holder.join(10_000);
			waiter.join(30_000);
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
		assertThat(prometheus).contains("lock_name=\"'stock:' + #sku\",outcome=\"acquired\"")
			.containsPattern("zklock_acquire_seconds_count\\{[^}]*outcome=\"acquired\"")
			.containsPattern("zklock_held_seconds_count\\{[^}]*lock_name=\"'stock:' \\+ #sku\"")
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
		Map<String, Object> report = client().post().uri("/demo/oversell?stock=20&orders=50").retrieve().body(JSON);
		Map<String, Object> locked = (Map<String, Object>) report.get("withLock");
		assertThat(locked).containsEntry("accepted", 20)
			.containsEntry("sold", 20)
			.containsEntry("remaining", 0)
			.containsEntry("oversold", 0);
		Map<String, Object> unlocked = (Map<String, Object>) report.get("withoutLock");
		int sold = (Integer) unlocked.get("sold");
		assertThat(unlocked.get("accepted")).isEqualTo(sold);
		assertThat(unlocked.get("oversold")).isEqualTo(Math.max(0, sold - 20));
		assertThat((Integer) unlocked.get("remaining")).isBetween(0, 20);
	}

}
