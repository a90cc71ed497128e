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

	@Test
	void healthIsUp() {
		Map<String, Object> health = client().get().uri("/actuator/health").retrieve().body(JSON);
		assertThat(health).containsEntry("status", "UP");
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
