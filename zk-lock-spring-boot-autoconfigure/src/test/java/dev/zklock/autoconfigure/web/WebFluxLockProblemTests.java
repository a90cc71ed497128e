package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
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
 * A {@code @DistributedLock} controller method of a WebFlux application on Reactor Netty,
 * with a real in-process ZooKeeper, called over HTTP while another ZooKeeper session
 * holds its lock.
 */
@Timeout(120)
class WebFluxLockProblemTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void busyLockIsConflictProblemThatNamesNoLockInternals() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start()) {
			HttpProbe http = new HttpProbe(context);
			for (String path : new String[] { "/work", "/work-blocking" }) {
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
		try (ConfigurableApplicationContext context = start()) {
			HttpResponse<String> ok = new HttpProbe(context).get("/work");
			assertThat(ok.statusCode()).isEqualTo(200);
			assertThat(ok.body()).isEqualTo("done");
		}
	}

	@Test
	void lockDetailsAreExposedWhenAllowed() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start("zklock.web.problem-details.expose-lock-details=true")) {
			HttpResponse<String> response = new HttpProbe(context).get("/work");
			assertThat(response.statusCode()).isEqualTo(409);
			Map<String, Object> body = HttpProbe.json(response);
			assertThat(body).containsEntry("lockKey", HttpProbe.KEY)
				.containsEntry("reason", "HELD_REMOTELY")
				.containsKey("waitedMs");
			assertThat((String) body.get("detail")).contains(HttpProbe.PATH);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void applicationsOwnExceptionHandlerWins() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start(new Class<?>[] { LockAdvice.class })) {
			HttpResponse<String> response = new HttpProbe(context).get("/work");
			assertThat(response.statusCode()).isEqualTo(429);
			assertThat(response.body()).isEqualTo("advice handled");
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void backsOffWhenDisabled() throws Exception {
		ZkLock held = HttpProbe.holdElsewhere(this.zk);
		try (ConfigurableApplicationContext context = start("zklock.web.problem-details.enabled=false")) {
			assertThat(context.getBeanNamesForType(LockAcquisitionProblemWebExceptionHandler.class)).isEmpty();
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
		return start(new Class<?>[0], properties);
	}

	private ConfigurableApplicationContext start(Class<?>[] extra, String... properties) {
		return new SpringApplicationBuilder(FluxApplication.class).sources(extra)
			.web(WebApplicationType.REACTIVE)
			.properties(HttpProbe.applicationProperties(this.zk, properties))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ WorkController.class, LostController.class })
	static class FluxApplication {

	}

	@RestController
	static class WorkController {

		@GetMapping("/work")
		@DistributedLock(key = "'order-4711'", waitMs = 0)
		Mono<String> work() {
			return Mono.just("done");
		}

		// One attempt on the event loop: waitMs = 0 does not wait for the holder
		@GetMapping("/work-blocking")
		@DistributedLock(key = "'order-4711'", waitMs = 0)
		String workBlocking() {
			return "done";
		}

	}

	// Default order, the lowest precedence: still before the auto-configured handler
	@RestControllerAdvice
	static class LockAdvice {

		@ExceptionHandler(LockAcquisitionException.class)
		ResponseEntity<String> busy(LockAcquisitionException ex) {
			return ResponseEntity.status(429).body("advice handled");
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
		public Mono<String> lost() {
			return Mono.<String>never().doOnSubscribe((subscription) -> this.holding.countDown());
		}

	}

}
