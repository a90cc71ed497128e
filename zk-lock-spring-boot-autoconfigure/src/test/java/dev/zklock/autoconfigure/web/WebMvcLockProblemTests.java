package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLock;
import dev.zklock.annotation.OnLost;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @DistributedLock} controller method of a Spring MVC application on Tomcat,
 * with a real in-process ZooKeeper, called over HTTP while another ZooKeeper session
 * holds its lock.
 */
@Timeout(120)
class WebMvcLockProblemTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void busyLockIsConflictProblemThatNamesNoLockInternals() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context).extracting((c) -> c.getBean(LockAcquisitionProblemResolver.class)).isNotNull();
			HttpProbe http = new HttpProbe(context);
			for (String path : new String[] { "/work", "/work-async" }) {
				HttpResponse<String> response = http.get(path);
				assertThat(response.statusCode()).as(path).isEqualTo(409);
				assertThat(response.headers().firstValue(HttpHeaders.CONTENT_TYPE))
					.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
				assertThat(response.headers().firstValue(HttpHeaders.RETRY_AFTER)).hasValue("1");
				Map<String, Object> body = HttpProbe.json(response);
				assertThat(body).containsEntry("status", 409)
					.containsEntry("title", "Conflict")
					.containsEntry("detail", "Another request is working on this resource; try again shortly.")
					.containsEntry("instance", path);
				// Spring leaves out the default type, about:blank, as RFC 9457 allows
				assertThat(body.keySet()).containsOnly("title", "status", "detail", "instance");
				assertThat(response.body()).doesNotContain(HttpProbe.KEY, "/locks", "_c_", "@", "HELD_");
			}
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void sameCallSucceedsOnceTheLockIsFreeAndOtherExceptionsAreLeftAlone() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			HttpProbe http = new HttpProbe(context);
			HttpResponse<String> ok = http.get("/work");
			assertThat(ok.statusCode()).isEqualTo(200);
			assertThat(ok.body()).isEqualTo("done");
			HttpResponse<String> failure = http.get("/fail");
			HttpProbe.assertPlainServerError(failure);
		}
	}

	@Test
	void lockDetailsAreExposedWhenAllowed() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start("zklock.web.problem-details.expose-lock-details=true",
				"zklock.web.problem-details.retry-after=2500ms")) {
			HttpResponse<String> response = new HttpProbe(context).get("/work");
			assertThat(response.statusCode()).isEqualTo(409);
			assertThat(response.headers().firstValue(HttpHeaders.RETRY_AFTER)).hasValue("3");
			Map<String, Object> body = HttpProbe.json(response);
			assertThat(body).containsEntry("lockKey", HttpProbe.KEY)
				.containsEntry("reason", "HELD_REMOTELY")
				.containsKey("waitedMs");
			assertThat((String) body.get("detail")).startsWith("Could not acquire lock '" + HttpProbe.KEY + "'")
				.contains(HttpProbe.PATH);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void applicationsOwnExceptionHandlersWin() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try {
			try (ConfigurableApplicationContext context = start()) {
				HttpResponse<String> response = new HttpProbe(context).get("/own");
				assertThat(response.statusCode()).isEqualTo(423);
				assertThat(response.body()).isEqualTo("controller handled");
			}
			try (ConfigurableApplicationContext context = start(LockAdvice.class)) {
				HttpResponse<String> response = new HttpProbe(context).get("/work");
				assertThat(response.statusCode()).isEqualTo(429);
				assertThat(response.body()).isEqualTo("advice handled");
			}
			try (ConfigurableApplicationContext context = start(CatchAllAdvice.class)) {
				HttpResponse<String> response = new HttpProbe(context).get("/work-async");
				assertThat(response.statusCode()).isEqualTo(418);
				assertThat(response.body()).isEqualTo("caught LockAcquisitionException");
			}
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void backsOffWhenDisabled() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start("zklock.web.problem-details.enabled=false")) {
			assertThat(context.getBeanNamesForType(LockAcquisitionProblemResolver.class)).isEmpty();
			HttpResponse<String> response = new HttpProbe(context).get("/work");
			HttpProbe.assertPlainServerError(response);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void lockLostWhileTheWorkRanIsAProblemOfItsOwnType() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			HttpResponse<String> response = new HttpProbe(context).getWhileNodeDeleted("/lost", this.zk, "stock-1",
					context.getBean(LostController.class).holding());
			Map<String, Object> body = HttpProbe.assertLockLostProblem(response, "/lost");
			assertThat(body.keySet()).containsOnly("type", "title", "status", "detail", "instance");
			assertThat(body).containsEntry("detail",
					"The request's work was stopped when its lock was lost; part of it may have been done.");
			assertThat(response.body()).doesNotContain("stock-1", "/locks", "_c_");
		}
		try (ConfigurableApplicationContext context = start("zklock.web.problem-details.expose-lock-details=true")) {
			HttpResponse<String> response = new HttpProbe(context).getWhileNodeDeleted("/lost", this.zk, "stock-1",
					context.getBean(LostController.class).holding());
			Map<String, Object> body = HttpProbe.assertLockLostProblem(response, "/lost");
			assertThat(body).containsEntry("lockKey", "stock-1").containsKey("fencingToken");
			assertThat((String) body.get("detail")).contains("another client deleted its node");
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		return start(null, properties);
	}

	private ConfigurableApplicationContext start(Class<?> advice, String... properties) {
		SpringApplicationBuilder builder = new SpringApplicationBuilder(MvcApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties(HttpProbe.applicationProperties(this.zk, properties));
		if (advice != null) {
			builder.sources(advice);
		}
		return builder.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ WorkController.class, OwnHandlerController.class, LostController.class })
	static class MvcApplication {

	}

	@RestController
	static class WorkController {

		@GetMapping("/work")
		@DistributedLock(key = "'order-4711'", waitMs = 0)
		String work() {
			return "done";
		}

		@GetMapping("/work-async")
		@DistributedLock(key = "'order-4711'", waitMs = 0)
		CompletableFuture<String> workAsync() {
			return CompletableFuture.supplyAsync(() -> "done", TestThreads.EXECUTOR);
		}

		@GetMapping("/fail")
		String fail() {
			throw new IllegalStateException("not a lock");
		}

	}

	@RestController
	static class OwnHandlerController {

		@GetMapping("/own")
		@DistributedLock(key = "'order-4711'", waitMs = 0)
		String own() {
			return "done";
		}

		@ExceptionHandler(LockAcquisitionException.class)
		ResponseEntity<String> busy(LockAcquisitionException ex) {
			return ResponseEntity.status(423).body("controller handled");
		}

	}

	// Default order, the lowest precedence: still before the auto-configured resolver
	@RestControllerAdvice
	static class LockAdvice {

		@ExceptionHandler(LockAcquisitionException.class)
		ResponseEntity<String> busy(LockAcquisitionException ex) {
			return ResponseEntity.status(429).body("advice handled");
		}

	}

	@RestControllerAdvice
	static class CatchAllAdvice {

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> any(Exception ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			return ResponseEntity.status(418).body("caught " + cause.getClass().getSimpleName());
		}

	}

	@RestController
	static class LostController {

		private final CountDownLatch holding = new CountDownLatch(1);

		public CountDownLatch holding() {
			return this.holding;
		}

		@GetMapping("/lost")
		@DistributedLock(key = "'stock-1'", onLost = OnLost.INTERRUPT)
		public String lost() throws InterruptedException {
			this.holding.countDown();
			Thread.sleep(30_000);
			return "slept to its end";
		}

	}

}
