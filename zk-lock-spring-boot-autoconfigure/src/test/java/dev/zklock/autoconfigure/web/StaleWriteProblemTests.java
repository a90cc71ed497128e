package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.core.LeaseState;
import dev.zklock.core.TestThreads;
import dev.zklock.jdbc.FencedTable;
import dev.zklock.jdbc.JdbcFencing;
import dev.zklock.template.LockContext;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a request whose write was refused, or whose lock was lost, answers, over HTTP on
 * Tomcat with a real in-process ZooKeeper and H2: a refused fenced JDBC write and a
 * refused guarded ZooKeeper write are {@code 409} problems of their own types (nothing
 * was applied); a lock lost under work that ran to its end says so, not that the work was
 * stopped.
 */
@Timeout(120)
class StaleWriteProblemTests {

	/** The application's 4 s session of before. */
	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create().sessionTimeout(Duration.ofSeconds(4));

	@Test
	void refusedFencedWriteIsAConflictOfItsOwnType() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			newerHolderWrote(context.getBean(JdbcTemplate.class));
			HttpResponse<String> response = new HttpProbe(context).get("/fenced");
			Map<String, Object> body = assertProblem(response, 409, FencedWriteProblems.FENCED_WRITE_REFUSED_TYPE,
					"Fenced write refused", "/fenced");
			assertThat(body).containsEntry("detail",
					"The data holds a newer fencing token than this request's lock; nothing of this write was applied.");
			assertThat(body.keySet()).containsOnly("type", "title", "status", "detail", "instance");
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("SELECT qty FROM stock", Integer.class))
				.isEqualTo(10);
		}
		try (ConfigurableApplicationContext context = start("zklock.web.problem-details.expose-lock-details=true")) {
			newerHolderWrote(context.getBean(JdbcTemplate.class));
			Map<String, Object> body = assertProblem(new HttpProbe(context).get("/fenced"), 409,
					FencedWriteProblems.FENCED_WRITE_REFUSED_TYPE, "Fenced write refused", "/fenced");
			assertThat(body).containsEntry("fenced", "stock[sku=apple]")
				.containsEntry("storedToken", Long.MAX_VALUE)
				// The request still holds its lock: the higher token came from outside it
				.containsEntry("holderLock", "HELD")
				.containsKey("fencingToken");
			assertThat((String) body.get("detail")).contains("still holds its lock");
		}
	}

	@Test
	void refusedGuardedWriteIsAConflictOfItsOwnType() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			Controllers controllers = context.getBean(Controllers.class);
			HttpResponse<String> response = whileLost(context, "/guarded", controllers, () -> {
				zk.assertThatKey("guarded-1").isHeldByApplication().hasWaiters(0);
				zk.deleteHeldNode("guarded-1");
			});
			Map<String, Object> body = assertProblem(response, 409, LockProblems.GUARDED_WRITE_REFUSED_TYPE,
					"Guarded write refused", "/guarded");
			assertThat(body).containsEntry("detail", "The lock was lost before the write; nothing of it was written.");
			assertThat(response.body()).doesNotContain("guarded-1", "/locks", "_c_");
			assertThat(context.getBean(CuratorFramework.class).checkExists().forPath("/guarded-data")).isNull();
		}
	}

	@Test
	void lockLostUnderWorkThatRanToItsEndSaysSo() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			Controllers controllers = context.getBean(Controllers.class);
			HttpResponse<String> response = whileLost(context, "/ran-to-its-end", controllers, zk::expireSession);
			Map<String, Object> body = HttpProbe.assertLockLostProblem(response, "/ran-to-its-end");
			assertThat(body).containsEntry("detail", "The request's work ran to its end, but its lock was lost while "
					+ "it ran: another request may have worked on the same resource at the same time.");
			assertThat(controllers.ranToItsEndLatch().getCount()).isZero();
		}
	}

	private static void newerHolderWrote(JdbcTemplate jdbc) {
		jdbc.execute("CREATE TABLE IF NOT EXISTS stock (sku VARCHAR(64) PRIMARY KEY, qty INT NOT NULL,"
				+ " fence BIGINT DEFAULT 0 NOT NULL)");
		jdbc.update("DELETE FROM stock");
		jdbc.update("INSERT INTO stock (sku, qty, fence) VALUES ('apple', 10, ?)", Long.MAX_VALUE);
	}

	private static Map<String, Object> assertProblem(HttpResponse<String> response, int status, String type,
			String title, String path) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue(HttpHeaders.CONTENT_TYPE))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		assertThat(response.headers().firstValue(HttpHeaders.RETRY_AFTER)).isEmpty();
		Map<String, Object> body = HttpProbe.json(response);
		assertThat(body).containsEntry("type", type)
			.containsEntry("title", title)
			.containsEntry("status", status)
			.containsEntry("instance", path);
		return body;
	}

	/**
	 * Call the path; once its method holds its key, make the lock lost, and let the
	 * method go on.
	 */
	private HttpResponse<String> whileLost(ConfigurableApplicationContext context, String path, Controllers controllers,
			Runnable loseTheLock) throws Exception {
		zk.useApplication(context.getBean(ZkLockRegistry.class));
		HttpProbe http = new HttpProbe(context);
		CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
			try {
				return http.get(path);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		assertThat(controllers.holding().await(20, TimeUnit.SECONDS)).isTrue();
		loseTheLock.run();
		controllers.lost().countDown();
		return call.get(30, TimeUnit.SECONDS);
	}

	private ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(WebApplication.class).web(WebApplicationType.SERVLET)
			.properties(HttpProbe.applicationProperties(zk.connectString(), properties))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Controllers.class)
	static class WebApplication {

	}

	@RestController
	static class Controllers {

		static final FencedTable STOCK = FencedTable.of("stock", "sku");

		private final CountDownLatch holding = new CountDownLatch(1);

		private final CountDownLatch lost = new CountDownLatch(1);

		private final CountDownLatch ranToItsEnd = new CountDownLatch(1);

		private final JdbcFencing fencing;

		private final CuratorFramework client;

		Controllers(DataSource dataSource, CuratorFramework client) {
			this.fencing = new JdbcFencing(dataSource);
			this.client = client;
		}

		// Through methods: the bean is a class-based proxy, whose own fields are unset
		public CountDownLatch holding() {
			return this.holding;
		}

		public CountDownLatch lost() {
			return this.lost;
		}

		public CountDownLatch ranToItsEndLatch() {
			return this.ranToItsEnd;
		}

		@GetMapping("/fenced")
		@DistributedLock(key = "'stock-2'")
		public String fenced() {
			this.fencing.update(STOCK, "apple", Map.of("qty", 9));
			return "written";
		}

		@GetMapping("/guarded")
		@DistributedLock(key = "'guarded-1'")
		public String guarded() throws Exception {
			this.holding.countDown();
			assertThat(this.lost.await(20, TimeUnit.SECONDS)).isTrue();
			LockContext.current()
				.guardedTransaction()
				.forOperations(this.client.transactionOp().create().forPath("/guarded-data"));
			return "written";
		}

		// onLost is CONTINUE: the work runs to its end, and the release finds the loss
		@GetMapping("/ran-to-its-end")
		@DistributedLock(key = "'continued-1'")
		public String ranToItsEnd() throws Exception {
			this.holding.countDown();
			assertThat(this.lost.await(20, TimeUnit.SECONDS)).isTrue();
			// The lock is this thread's: poll here, not on Awaitility's thread
			await().atMost(Duration.ofSeconds(20))
				.pollInSameThread()
				.until(() -> LockContext.current().leaseState() == LeaseState.LOST);
			this.ranToItsEnd.countDown();
			return "done";
		}

	}

}
