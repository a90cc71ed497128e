package dev.zklock.sample;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;

import dev.zklock.dashboardapp.DashboardWorkload;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample shop on a real ZooKeeper server of its own (so that it can be stopped and
 * started again), with the {@link DashboardWorkload} added, on a free port; and the
 * workout that makes it publish every outcome the Grafana dashboard shows.
 */
final class MonitoredShop implements AutoCloseable {

	/**
	 * How long to wait for anything that should take well under a second: generous, as CI
	 * runs these tests on loaded two-core machines.
	 */
	static final Duration LONG_WAIT = Duration.ofSeconds(30);

	private final TestingServer zooKeeper;

	private final ConfigurableApplicationContext context;

	private final RestClient client;

	private final int port;

	private MonitoredShop(TestingServer zooKeeper, ConfigurableApplicationContext context) {
		this.zooKeeper = zooKeeper;
		this.context = context;
		this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
		this.client = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + this.port)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
	}

	static MonitoredShop start() throws Exception {
		TestingServer zooKeeper = new TestingServer(true);
		try {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(ShopApplication.class,
					DashboardWorkload.class)
				.run("--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off",
						"--zklock.embedded.enabled=false", "--zklock.connect-string=" + zooKeeper.getConnectString(),
						"--spring.datasource.url=jdbc:h2:mem:dashboard-" + UUID.randomUUID()
								+ ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
						// An order waits this long for a SKU's lock: a busy SKU times out
						// soon
						"--shop.lock-wait=1s");
			return new MonitoredShop(zooKeeper, context);
		}
		catch (RuntimeException ex) {
			zooKeeper.close();
			throw ex;
		}
	}

	/**
	 * The port of the application and of its Actuator endpoints.
	 * @return the port
	 */
	int port() {
		return this.port;
	}

	PrometheusScrape scrape() {
		String text = this.client.get()
			.uri("/actuator/prometheus")
			.accept(MediaType.TEXT_PLAIN)
			.retrieve()
			.body(String.class);
		assertThat(text).as("/actuator/prometheus").isNotBlank();
		return PrometheusScrape.parse(text);
	}

	/**
	 * Make the shop publish every outcome the dashboard shows: acquired, timed out,
	 * skipped, unavailable (ZooKeeper stopped, then started again: suspended and
	 * reconnected), a hold lost (its node deleted by another client), and the restock
	 * group led.
	 * @throws Exception if a step fails
	 */
	void exerciseEveryOutcome() throws Exception {
		DashboardWorkload.Calls calls = this.context.getBean(DashboardWorkload.Calls.class);
		CuratorFramework curator = this.context.getBean(CuratorFramework.class);
		// Acquired: an order, and the report with nobody in its way. On a loaded machine
		// the first lock of a fresh server may take longer than an order waits: again
		await().atMost(LONG_WAIT).until(() -> order("apple") == 200);
		await().atMost(LONG_WAIT).until(() -> {
			calls.report();
			return calls.reports() > 0;
		});
		awaitScrape("zklock_acquire_seconds_count", "outcome", "acquired", "lock_name", "stock");
		try (CuratorFramework other = CuratorFrameworkFactory.builder()
			.connectString(this.zooKeeper.getConnectString())
			.namespace(curator.getNamespace())
			.retryPolicy(new RetryOneTime(100))
			.build()) {
			other.start();
			assertThat(other.blockUntilConnected((int) LONG_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			// Busy: another client holds the SKU's lock and the report's
			InterProcessMutex stock = new InterProcessMutex(other, "/locks/stock:apple");
			InterProcessMutex report = new InterProcessMutex(other, "/locks/report");
			assertThat(stock.acquire(LONG_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(report.acquire(LONG_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			try {
				assertThat(order("apple")).as("an order for a busy SKU").isNotEqualTo(200);
				int reports = calls.reports();
				calls.report();
				assertThat(calls.reports()).as("the report skipped while busy").isEqualTo(reports);
			}
			finally {
				stock.release();
				report.release();
			}
			awaitScrape("zklock_acquire_seconds_count", "outcome", "timeout", "lock_name", "stock");
			awaitScrape("zklock_acquire_seconds_count", "outcome", "skipped", "lock_name", "report");
			loseAHold(calls, other);
		}
		leaveZooKeeperForAWhile(calls);
		awaitScrape("zklock_leadership_leading", "group", "restock");
	}

	/**
	 * A held lock whose node another client deletes: lost, and its hold ends as lost.
	 */
	private void loseAHold(DashboardWorkload.Calls calls, CuratorFramework other) throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> {
			try {
				calls.hold(held, release, LONG_WAIT);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		try {
			await().atMost(LONG_WAIT).until(() -> held.getCount() == 0 || holding.isDone());
			assertThat(holding).as("the hold ended before it held the lock").isNotDone();
			for (String child : other.getChildren().forPath("/locks/lost-hold")) {
				other.delete().forPath("/locks/lost-hold/" + child);
			}
			awaitScrape("zklock_lost_total");
		}
		finally {
			release.countDown();
		}
		try {
			holding.get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			// The lost lock is reported when its hold ends
		}
		awaitScrape("zklock_held_seconds_count", "outcome", "lost", "lock_name", "lost-hold");
	}

	/**
	 * ZooKeeper stopped: the connection is suspended, the report is skipped and orders
	 * fail for want of it; then started again: reconnected.
	 */
	private void leaveZooKeeperForAWhile(DashboardWorkload.Calls calls) throws Exception {
		double reconnected = scrape().sum("zklock_session_events_total", "state", "RECONNECTED");
		this.zooKeeper.stop();
		try {
			awaitScrape("zklock_session_events_total", "state", "SUSPENDED");
			calls.report();
			assertThat(order("apple")).as("an order while ZooKeeper is down").isNotEqualTo(200);
			awaitScrape("zklock_acquire_seconds_count", "outcome", "skipped_unavailable", "lock_name", "report");
		}
		finally {
			this.zooKeeper.restart();
		}
		await().atMost(LONG_WAIT)
			.untilAsserted(() -> assertThat(scrape().sum("zklock_session_events_total", "state", "RECONNECTED"))
				.isGreaterThan(reconnected));
	}

	private int order(String sku) {
		return this.client.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("sku", sku, "qty", 1))
			.retrieve()
			.toBodilessEntity()
			.getStatusCode()
			.value();
	}

	/**
	 * Wait until the scrape has a series of the name with the labels, at a value above 0.
	 */
	private void awaitScrape(String name, String... labels) {
		await().atMost(LONG_WAIT)
			.untilAsserted(() -> assertThat(scrape().sum(name, labels)).as("%s %s", name, String.join(",", labels))
				.isPositive());
	}

	@Override
	public void close() throws Exception {
		try {
			this.context.close();
		}
		finally {
			this.zooKeeper.close();
		}
	}

}
