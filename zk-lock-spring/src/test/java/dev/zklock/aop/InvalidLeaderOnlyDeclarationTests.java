package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LeaderOnly;
import dev.zklock.test.InProcessZooKeeper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code @LeaderOnly} that could not work fails the application's startup with a
 * sentence that names the method and the problem, instead of running the method on every
 * instance or failing at every call; one that can work starts.
 */
@Timeout(60)
class InvalidLeaderOnlyDeclarationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void privateMethod() {
		assertFailsStartup(PrivateMethod.class, "run()", "the method is private");
	}

	@Test
	void staticMethod() {
		assertFailsStartup(StaticMethod.class, "run()", "the method is static");
	}

	@Test
	void finalMethod() {
		assertFailsStartup(FinalMethod.class, "run()",
				"the method is final, and class-based proxies cannot override it: it would run on every instance");
	}

	@Test
	void emptyGroup() {
		assertFailsStartup(EmptyGroup.class, "run()", "group \"\" is empty: it names no group to lead");
	}

	@Test
	void blankGroup() {
		assertFailsStartup(BlankGroup.class, "run()", "group \"  \" is empty");
	}

	@Test
	void groupThatCannotBeAPathSegment() {
		assertFailsStartup(SlashInGroup.class, "run()",
				"group \"billing/eu\" cannot be a group name: Leader group name");
	}

	@Test
	void placeholderThatCannotBeResolved() {
		assertFailsStartup(UnresolvablePlaceholder.class, "run()", "group \"${app.no-such-group}\" cannot be resolved");
	}

	@Test
	void placeholderThatResolvesToAnInvalidName() {
		assertFailsStartup("a/b", ResolvedGroup.class, "run()",
				"group \"${test.group}\" (resolved to \"a/b\") cannot be a group name");
	}

	@Test
	void primitiveReturnType() {
		InvalidLockDeclarationException failure = failure("g", PrimitiveReturn.class);
		assertThat(failure.getProblem()).isEqualTo("@LeaderOnly skips the call where this instance does not lead, and "
				+ "needs something to return when the method is skipped, but it returns int, which has no empty value");
		assertThat(failure.getAction()).contains("Integer");
	}

	@Test
	void completionStage() {
		assertFailsStartup(ReturnsFuture.class, "run()",
				"it returns java.util.concurrent.CompletableFuture, whose work goes on after the method returns");
	}

	@Test
	void mono() {
		assertFailsStartup(ReturnsMono.class, "run()", "it returns reactor.core.publisher.Mono");
	}

	@Test
	void typeLevelOnABeanWithAMethodThatCannotBeSkipped() {
		assertFailsStartup(TypeLevel.class, "count()", "but it returns long");
	}

	@Test
	void selfCall() {
		Throwable thrown = startupFailure("g", SelfCall.class);
		SelfInvocationException failure = cause(thrown, SelfInvocationException.class);
		assertThat(failure.getCalls()).hasSize(1);
		assertThat(failure.getCalls().get(0).describe())
			.contains("calls @LeaderOnly " + SelfCall.class.getName() + ".leaderOnly()");
		assertThat(failure.getProblem()).contains("calls its own @LeaderOnly methods through 'this'")
			.contains("they would run on every instance");
		assertThat(failure.getAction()).contains("@UnlockedSelfCall(\"leaderOnly\")");
	}

	@Test
	void selfCallFromLeaderWorkOfAnotherGroup() {
		SelfInvocationException failure = cause(startupFailure("g", SelfCallAcrossGroups.class),
				SelfInvocationException.class);
		assertThat(failure.getCalls()).singleElement()
			.satisfies((call) -> assertThat(call.caller()).contains(".billing()"));
	}

	@Test
	void selfCallFromLeaderWorkOfTheSameGroupToALockedMethod() {
		// The term covers the callee's @LeaderOnly, not its lock: it would run without it
		SelfInvocationException failure = cause(startupFailure("g", SelfCallToALockedLeaderMethod.class),
				SelfInvocationException.class);
		assertThat(failure.getCalls()).singleElement().satisfies((call) -> {
			assertThat(call.caller()).contains(".all()");
			assertThat(call.describe()).contains("calls @DistributedLock");
		});
	}

	@Test
	void selfCallsFromLeaderWorkOfTheSameGroupStart() throws Exception {
		try (AnnotationConfigApplicationContext context = LeaderOnlyContext.start(this.zk, "g",
				SelfCallsInOneGroup.class, TypeLevelSelfCalls.class)) {
			assertThat(context.getBean(dev.zklock.leadership.ZkLeadership.class).getGroups()).containsExactly("g");
		}
	}

	@Test
	void noLeadership() {
		Throwable thrown = null;
		try (AnnotationConfigApplicationContext context = LeaderOnlyContext
			.startWith(LeaderOnlyContext.NoLeadershipConfiguration.class, this.zk, "g", Valid.class)) {
			// started: no failure
		}
		catch (Exception ex) {
			thrown = ex;
		}
		InvalidLockDeclarationException failure = cause(thrown, InvalidLockDeclarationException.class);
		assertThat(failure.getMethod()).isEqualTo(Valid.class.getName() + ".run()");
		assertThat(failure.getProblem()).contains("needs a ZkLeadership bean").contains("group 'g'");
		assertThat(failure.getAction()).contains("new ZkLeadership(registry)");
	}

	@Test
	void validDeclarationsStart() throws Exception {
		try (AnnotationConfigApplicationContext context = LeaderOnlyContext.start(this.zk, "valid", Valid.class,
				TypeLevelValid.class)) {
			assertThat(context.getBean(dev.zklock.leadership.ZkLeadership.class).getGroups()).containsExactly("g",
					"valid");
		}
	}

	private void assertFailsStartup(Class<?> service, String method, String problem) {
		assertFailsStartup("g", service, method, problem);
	}

	private void assertFailsStartup(String group, Class<?> service, String method, String problem) {
		InvalidLockDeclarationException failure = failure(group, service);
		assertThat(failure.getAnnotation()).isEqualTo("@LeaderOnly");
		assertThat(failure.getMethod()).isEqualTo(service.getName() + "." + method);
		assertThat(failure.getMessage()).startsWith("Invalid @LeaderOnly on " + service.getName() + "." + method)
			.contains(problem);
		assertThat(failure.getAction()).isNotBlank();
	}

	private InvalidLockDeclarationException failure(String group, Class<?> service) {
		return cause(startupFailure(group, service), InvalidLockDeclarationException.class);
	}

	private Throwable startupFailure(String group, Class<?> service) {
		Throwable thrown = null;
		try (AnnotationConfigApplicationContext context = LeaderOnlyContext.start(this.zk, group, service)) {
			// started: no failure
		}
		catch (Exception ex) {
			thrown = ex;
		}
		assertThat(thrown).as("startup of %s", service).isNotNull();
		return thrown;
	}

	private static <T extends Throwable> T cause(Throwable thrown, Class<T> type) {
		assertThat(thrown).isNotNull();
		Throwable cause = thrown;
		while (cause.getCause() != null && !type.isInstance(cause)) {
			cause = cause.getCause();
		}
		assertThat(cause).isInstanceOf(type);
		return type.cast(cause);
	}

	public static class PrivateMethod {

		@LeaderOnly(group = "g")
		private void run() {
		}

		public void call() {
			run();
		}

	}

	public static class StaticMethod {

		@LeaderOnly(group = "g")
		public static void run() {
		}

	}

	public static class FinalMethod {

		@LeaderOnly(group = "g")
		public final void run() {
		}

	}

	public static class EmptyGroup {

		@LeaderOnly(group = "")
		public void run() {
		}

	}

	public static class BlankGroup {

		@LeaderOnly(group = "  ")
		public void run() {
		}

	}

	public static class SlashInGroup {

		@LeaderOnly(group = "billing/eu")
		public void run() {
		}

	}

	public static class UnresolvablePlaceholder {

		@LeaderOnly(group = "${app.no-such-group}")
		public void run() {
		}

	}

	public static class ResolvedGroup {

		@LeaderOnly(group = "${test.group}")
		public void run() {
		}

	}

	public static class PrimitiveReturn {

		@LeaderOnly(group = "g")
		public int run() {
			return 1;
		}

	}

	public static class ReturnsFuture {

		@LeaderOnly(group = "g")
		public CompletableFuture<String> run() {
			return CompletableFuture.completedFuture("a");
		}

	}

	public static class ReturnsMono {

		@LeaderOnly(group = "g")
		public Mono<String> run() {
			return Mono.just("a");
		}

	}

	@LeaderOnly(group = "g")
	public static class TypeLevel {

		public long count() {
			return 1;
		}

	}

	@LeaderOnly(group = "${test.group}")
	public static class TypeLevelValid {

		public List<String> names() {
			return List.of();
		}

		@Override
		public String toString() {
			return "TypeLevelValid";
		}

	}

	public static class Valid {

		@LeaderOnly(group = "g")
		public void run() {
		}

	}

	public static class SelfCallAcrossGroups {

		@LeaderOnly(group = "g")
		public void billing() {
			reports();
		}

		@LeaderOnly(group = "h")
		public void reports() {
		}

	}

	public static class SelfCallToALockedLeaderMethod {

		@LeaderOnly(group = "g")
		public void all() {
			one();
		}

		@LeaderOnly(group = "g")
		@DistributedLock(key = "'one'")
		public void one() {
		}

	}

	public static class SelfCallsInOneGroup {

		@LeaderOnly(group = "${test.group}")
		public void all() {
			one();
		}

		@LeaderOnly(group = "g")
		public void one() {
		}

	}

	@LeaderOnly(group = "g")
	public static class TypeLevelSelfCalls {

		public void all() {
			one();
			two();
		}

		public void one() {
		}

		public void two() {
		}

	}

	public static class SelfCall {

		@LeaderOnly(group = "g")
		public void leaderOnly() {
		}

		public void caller() {
			leaderOnly();
		}

	}

}
