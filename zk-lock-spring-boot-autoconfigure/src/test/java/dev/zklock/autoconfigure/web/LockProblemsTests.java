package dev.zklock.autoconfigure.web;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;

import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.core.GuardedWriteRefusedException;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.core.LockLostException;
import dev.zklock.core.LockLostException.WorkOutcome;
import dev.zklock.jdbc.FencingTokenRejectedException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.servlet.ModelAndView;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status, {@code Retry-After} and body for each {@link Reason}, and the MVC and
 * WebFlux handlers on Spring's mock request and response objects (plain exceptions: no
 * ZooKeeper is needed to say what a reason maps to).
 */
@Timeout(30)
class LockProblemsTests {

	private static final String PATH = "/locks/order-4711";

	@Test
	void busyLockIsConflictWithRetryAfter() {
		LockProblems problems = new LockProblems(false, Duration.ofSeconds(1));
		for (Reason reason : List.of(Reason.HELD_LOCALLY, Reason.HELD_REMOTELY)) {
			assertThat(LockProblems.status(reason)).isEqualTo(HttpStatus.CONFLICT);
			assertThat(problems.retryAfter(reason)).isEqualTo("1");
			ProblemDetail problem = problems.problem(exception(reason), "/work");
			assertThat(problem.getStatus()).isEqualTo(409);
			assertThat(problem.getTitle()).isEqualTo("Conflict");
			assertThat(problem.getDetail())
				.isEqualTo("Another request is working on this resource; try again shortly.");
			assertThat(problem.getInstance()).hasToString("/work");
			assertThat(problem.getProperties()).isNull();
		}
	}

	@Test
	void zooKeeperUnavailableIsServiceUnavailableWithRetryAfter() {
		LockProblems problems = new LockProblems(false, Duration.ofSeconds(3));
		for (Reason reason : List.of(Reason.NOT_CONNECTED, Reason.NO_REPLY, Reason.CLOSED, Reason.INTERRUPTED)) {
			assertThat(LockProblems.status(reason)).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
			assertThat(problems.retryAfter(reason)).isEqualTo("3");
			ProblemDetail problem = problems.problem(exception(reason), null);
			assertThat(problem.getStatus()).isEqualTo(503);
			assertThat(problem.getTitle()).isEqualTo("Service Unavailable");
			assertThat(problem.getInstance()).isNull();
		}
	}

	@Test
	void refusedOperationIsServerErrorWithoutRetryAfter() {
		LockProblems problems = new LockProblems(false, Duration.ofSeconds(1));
		assertThat(LockProblems.status(Reason.ERROR)).isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
		assertThat(problems.retryAfter(Reason.ERROR)).isNull();
		assertThat(problems.problem(exception(Reason.ERROR), "/work").getStatus()).isEqualTo(500);
	}

	@ParameterizedTest
	@EnumSource(Reason.class)
	void everyReasonHidesTheLockUnlessExposed(Reason reason) {
		LockAcquisitionException ex = exception(reason);
		ProblemDetail hidden = new LockProblems(false, Duration.ofSeconds(1)).problem(ex, "/work");
		assertThat(hidden.toString()).doesNotContain("order-4711", "/locks", "_c_", "@", reason.name());
		ProblemDetail exposed = new LockProblems(true, Duration.ofSeconds(1)).problem(ex, "/work");
		if (reason.isBusy()) {
			assertThat(exposed.getDetail()).isEqualTo(ex.getMessage()).contains(PATH, "pid-1@host-a");
		}
		else {
			assertThat(exposed.getDetail()).contains("'order-4711'", PATH, reason.description())
				.doesNotContain("pid-1@host-a");
		}
		assertThat(exposed.getProperties()).containsEntry("lockKey", "order-4711")
			.containsEntry("reason", reason.name())
			.containsEntry("waitedMs", 25L);
	}

	@Test
	void retryAfterIsWholeSecondsRoundedUpAndZeroLeavesItOut() {
		assertThat(new LockProblems(false, Duration.ofMillis(1500)).retryAfter(Reason.HELD_REMOTELY)).isEqualTo("2");
		assertThat(new LockProblems(false, Duration.ofMillis(1)).retryAfter(Reason.HELD_REMOTELY)).isEqualTo("1");
		assertThat(new LockProblems(false, Duration.ofSeconds(2)).retryAfter(Reason.NO_REPLY)).isEqualTo("2");
		assertThat(new LockProblems(false, Duration.ZERO).retryAfter(Reason.HELD_REMOTELY)).isNull();
	}

	@Test
	void lockLostSaysWhatBecameOfTheWork() {
		LockProblems problems = new LockProblems(false, Duration.ofSeconds(1));
		assertThat(problems.problem(lost(WorkOutcome.COMPLETED), "/work").getDetail())
			.startsWith("The request's work ran to its end, but its lock was lost while it ran");
		assertThat(problems.problem(lost(WorkOutcome.STOPPED), "/work").getDetail())
			.isEqualTo("The request's work was stopped when its lock was lost; part of it may have been done.");
		assertThat(problems.problem(lost(WorkOutcome.NOT_STARTED), "/work").getDetail())
			.startsWith("A call of the request found its lock lost and did not run");
		ProblemDetail exposed = new LockProblems(true, Duration.ofSeconds(1)).problem(lost(WorkOutcome.STOPPED),
				"/work");
		assertThat(exposed.getProperties()).containsEntry("workOutcome", "STOPPED");
		assertThat(exposed.getDetail()).endsWith("the work under it was stopped");
	}

	@Test
	void staleWritesRefusedAreConflictsOfTheirOwnTypesWithoutRetryAfter() {
		LockProblems problems = new LockProblems(false, Duration.ofSeconds(1));
		FencingTokenRejectedException fenced = new FencingTokenRejectedException("stock[sku=apple]", 7, 9);
		LockProblems.Response answer = problems.response(new CompletionException(fenced), "/orders");
		assertThat(answer).isNotNull();
		assertThat(answer.status()).isEqualTo(HttpStatus.CONFLICT);
		assertThat(answer.retryAfter()).isNull();
		assertThat(answer.problem().getType()).hasToString(FencedWriteProblems.FENCED_WRITE_REFUSED_TYPE);
		assertThat(answer.problem().toString()).doesNotContain("stock", "apple");
		GuardedWriteRefusedException guarded = new GuardedWriteRefusedException("order-4711", PATH,
				PATH + "/_c_1-lock-0000000001", 7, "no longer exists", null);
		answer = problems.response(guarded, "/orders");
		assertThat(answer).isNotNull();
		assertThat(answer.status()).isEqualTo(HttpStatus.CONFLICT);
		assertThat(answer.problem().getType()).hasToString(LockProblems.GUARDED_WRITE_REFUSED_TYPE);
		assertThat(answer.problem().toString()).doesNotContain("order-4711", PATH);
	}

	private static LockLostException lost(WorkOutcome outcome) {
		return new LockLostException("order-4711", PATH, 7, "the ZooKeeper session expired", outcome);
	}

	@Test
	void findsTheLockExceptionItselfOrAsACause() {
		LockAcquisitionException ex = exception(Reason.HELD_REMOTELY);
		assertThat(LockProblems.find(ex)).isSameAs(ex);
		assertThat(LockProblems.find(new CompletionException(ex))).isSameAs(ex);
		assertThat(LockProblems.find(new ServletException(new CompletionException(ex)))).isSameAs(ex);
		assertThat(LockProblems.find(new IllegalStateException("other"))).isNull();
		assertThat(LockProblems.find(null)).isNull();
		IllegalStateException first = new IllegalStateException("first");
		IllegalStateException second = new IllegalStateException("second", first);
		first.initCause(second);
		assertThat(LockProblems.find(first)).isNull();
	}

	@Test
	void mvcResolverWritesServiceUnavailableForAWrappedException() throws Exception {
		LockAcquisitionProblemResolver resolver = new LockAcquisitionProblemResolver(false, Duration.ofSeconds(2),
				() -> HttpMessageConverters.forServer().registerDefaults().build());
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/work");
		MockHttpServletResponse response = new MockHttpServletResponse();
		ModelAndView result = resolver.resolveException(request, response, null,
				new ServletException(new CompletionException(exception(Reason.NOT_CONNECTED))));
		assertThat(result).isNotNull();
		assertThat(result.isEmpty()).isTrue();
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getHeader(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
		assertThat(response.getContentType()).startsWith(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		assertThat(response.getContentAsString()).contains("\"status\":503", "Service Unavailable")
			.doesNotContain("order-4711", "/locks");
	}

	@Test
	void mvcResolverWritesServerErrorWithoutRetryAfterAndLeavesOtherExceptions() throws Exception {
		LockAcquisitionProblemResolver resolver = new LockAcquisitionProblemResolver(false, Duration.ofSeconds(2),
				() -> HttpMessageConverters.forServer().registerDefaults().build());
		MockHttpServletResponse response = new MockHttpServletResponse();
		assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/work"), response, null,
				exception(Reason.ERROR)))
			.isNotNull();
		assertThat(response.getStatus()).isEqualTo(500);
		assertThat(response.getHeader(HttpHeaders.RETRY_AFTER)).isNull();
		assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/work"), new MockHttpServletResponse(),
				null, new IllegalStateException("not a lock")))
			.isNull();
	}

	@Test
	void mvcResolverWithoutAProblemConverterSendsTheStatusAsAnError() {
		List<HttpMessageConverter<?>> none = List.of();
		LockAcquisitionProblemResolver resolver = new LockAcquisitionProblemResolver(false, Duration.ofSeconds(1),
				() -> none);
		MockHttpServletResponse response = new MockHttpServletResponse();
		assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/work"), response, null,
				exception(Reason.HELD_LOCALLY)))
			.isNotNull();
		assertThat(response.getStatus()).isEqualTo(409);
		assertThat(response.getErrorMessage()).isNull();
		assertThat(response.getHeader(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
	}

	@Test
	void webFluxHandlerWritesServiceUnavailableForAWrappedExceptionAndPassesOthersOn() {
		LockAcquisitionProblemWebExceptionHandler handler = new LockAcquisitionProblemWebExceptionHandler(false,
				Duration.ofSeconds(2), ServerCodecConfigurer.create().getWriters());
		assertThat(handler.getOrder()).isEqualTo(-2);
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/work"));
		handler.handle(exchange, new CompletionException(exception(Reason.NO_REPLY))).block(Duration.ofSeconds(10));
		assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(exchange.getResponse().getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
		assertThat(exchange.getResponse().getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(exchange.getResponse().getBodyAsString().block(Duration.ofSeconds(10)))
			.contains("\"status\":503", "\"instance\":\"/work\"")
			.doesNotContain("order-4711", "/locks");
		IllegalStateException other = new IllegalStateException("not a lock");
		MockServerWebExchange untouched = MockServerWebExchange.from(MockServerHttpRequest.get("/work"));
		org.assertj.core.api.Assertions
			.assertThatThrownBy(() -> handler.handle(untouched, other).block(Duration.ofSeconds(10)))
			.isSameAs(other);
		assertThat(untouched.getResponse().getStatusCode()).isNull();
	}

	/**
	 * The connection to ZooKeeper is never a client's to see, even with the lock's
	 * details exposed: not the connect string of a 503, nor the chroot of a 500. The name
	 * of the thread holding a busy lock in this JVM is a lock detail: exposed only when
	 * asked.
	 */
	@Test
	void theConnectStringIsNeverExposedAndTheHolderThreadOnlyWhenAsked() {
		String connectString = "zk-1.internal:2181,zk-2.internal:2181/prod";
		LockAcquisitionException notConnected = new LockAcquisitionException("order-4711", PATH, Duration.ofMillis(25),
				Reason.NOT_CONNECTED,
				"not connected: the connection is SUSPENDED since 10:00:00.000; connect string " + connectString, null);
		LockAcquisitionException noChroot = new LockAcquisitionException("order-4711", PATH, Duration.ofMillis(25),
				Reason.ERROR, "ZooKeeper has no node above /prod/locks/order-4711: the chroot of the connect string '"
						+ connectString + "' does not exist",
				null);
		for (LockAcquisitionException ex : List.of(notConnected, noChroot)) {
			for (boolean expose : List.of(false, true)) {
				ProblemDetail problem = new LockProblems(expose, Duration.ofSeconds(1)).problem(ex, "/work");
				assertThat(problem.toString()).doesNotContain("zk-1.internal", "connect string");
			}
		}
		LockAcquisitionException busyHere = new LockAcquisitionException("order-4711", PATH, Duration.ofMillis(25),
				Reason.HELD_LOCALLY, "holder thread 'http-nio-8080-exec-7'", null);
		assertThat(new LockProblems(false, Duration.ofSeconds(1)).problem(busyHere, "/work").toString())
			.doesNotContain("http-nio-8080-exec-7");
		assertThat(new LockProblems(true, Duration.ofSeconds(1)).problem(busyHere, "/work").getDetail())
			.contains("holder thread 'http-nio-8080-exec-7'");
	}

	private static LockAcquisitionException exception(Reason reason) {
		return new LockAcquisitionException("order-4711", PATH, Duration.ofMillis(25), reason,
				"held by _c_0f3a-lock-0000000001 (pid-1@host-a)", null);
	}

}
