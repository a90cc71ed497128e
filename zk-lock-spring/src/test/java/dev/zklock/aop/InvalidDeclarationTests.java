package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.EnableDistributedLocks;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every {@code @DistributedLock} that could not work fails the application's startup with
 * a sentence that names the method and the problem, instead of running the method without
 * its lock or failing at every call.
 */
@Timeout(60)
class InvalidDeclarationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void privateMethod() {
		assertFailsStartup(PrivateMethod.class, "run()", null,
				"the method is private, and Spring's proxies cannot intercept private methods");
	}

	@Test
	void staticMethod() {
		assertFailsStartup(StaticMethod.class, "run()", null, "the method is static");
	}

	@Test
	void finalMethod() {
		assertFailsStartup(FinalMethod.class, "run()", null,
				"the method is final, and class-based proxies cannot override it");
	}

	@Test
	void finalClass() {
		assertFailsStartup(FinalClass.class, "run()", null, "its class is final");
	}

	@Test
	void methodOnNoInterfaceUnderInterfaceProxies() {
		assertThatThrownBy(() -> start(InterfaceProxies.class, ServiceWithExtraMethod.class)).rootCause()
			.isInstanceOf(InvalidLockDeclarationException.class)
			.hasMessageContaining(ServiceWithExtraMethod.class.getName() + ".extra()")
			.hasMessageContaining("the method is on none of its interfaces");
	}

	@Test
	void bareWordThatShouldHaveBeenQuoted() {
		assertFailsStartup(BareWord.class, "run(String)", "inventory",
				"uses the bare word 'inventory', which is not a property of the expression's root object");
		assertThat(failure(BareWord.class).getAction()).contains("key = \"'inventory'\"");
	}

	@Test
	void beanThatDoesNotExist() {
		assertFailsStartup(MissingBean.class, "run()", "@nosuchbean.name",
				"refers to the bean 'nosuchbean', but there is no bean of that name");
	}

	@Test
	void propertyThatTheParameterTypeDoesNotHave() {
		assertFailsStartup(MissingProperty.class, "run(String)", "#sku.nosuchprop",
				"reads property 'nosuchprop' of #sku, a java.lang.String, which has no such property");
	}

	@Test
	void propertyOfAPropertyThatDoesNotExist() {
		assertFailsStartup(MissingNestedProperty.class, "run(Order)", "#order.customer.nmae",
				"reads property 'nmae' of #order.customer, a " + Customer.class.getName());
	}

	@Test
	void methodThatTheParameterTypeDoesNotHave() {
		assertFailsStartup(MissingMethod.class, "run(String)", "#sku.toUpper()",
				"calls toUpper() on #sku, a java.lang.String, which has no public method of that name");
	}

	@Test
	void parameterThatTheMethodDoesNotHave() {
		assertFailsStartup(MissingParameter.class, "run(String)", "'order:' + #orderId",
				"refers to #orderId, which the method does not have; its parameters are id");
	}

	@Test
	void syntaxError() {
		assertFailsStartup(SyntaxError.class, "run(String)", "'a' + ", "it is not a valid SpEL expression");
	}

	@Test
	void futureThatIsNotACompletionStage() {
		assertFailsStartup(ReturnsFuture.class, "run()", null,
				"it returns java.util.concurrent.Future, whose work may go on after the method returns");
	}

	@Test
	void stream() {
		assertFailsStartup(ReturnsStream.class, "run()", null, "it returns java.util.stream.Stream");
	}

	@Test
	void skipOnAMethodReturningAPrimitive() {
		assertFailsStartup(SkipPrimitive.class, "count()", null,
				"onLocked = SKIP needs something to return when the method is skipped, but it returns int");
		assertThat(failure(SkipPrimitive.class).getAction()).contains("Integer");
	}

	@Test
	void fallbackThatDoesNotExist() {
		assertFailsStartup(MissingFallback.class, "run(String)", null,
				"its fallback 'nowhere' cannot be called: there is no method named 'nowhere' in "
						+ MissingFallback.class.getName());
		assertThat(failure(MissingFallback.class).getAction())
			.contains("String nowhere(String, LockAcquisitionException ex)");
	}

	@Test
	void fallbackWithOtherParameters() {
		assertFailsStartup(FallbackWithOtherParameters.class, "run(String, int)", null,
				"its fallback 'busy' must take the same parameters as the method (String, int), optionally followed "
						+ "by a LockAcquisitionException, but FallbackWithOtherParameters has only busy(String)");
	}

	@Test
	void fallbackThatReturnsSomethingElse() {
		assertFailsStartup(FallbackReturningOtherType.class, "run(String)", null,
				"its fallback busy(String) returns java.lang.Integer, which the method, returning java.lang.String, "
						+ "cannot return");
	}

	@Test
	void bothWaits() {
		assertFailsStartup(BothWaits.class, "run()", null,
				"both waitAtMost (\"2s\") and waitMs (2000) are set, and only one can say how long to wait");
	}

	@Test
	void waitThatIsNotADuration() {
		assertFailsStartup(NotADuration.class, "run()", null, "waitAtMost \"two seconds\" is not a duration");
	}

	@Test
	void holdAtLeastFromAPropertyThatDoesNotExist() {
		assertFailsStartup(UnresolvableHold.class, "run()", null,
				"holdAtLeast \"${app.no-such-hold}\" cannot be resolved");
	}

	@Test
	void fallbackThatIsTheLockedMethodItself() {
		assertFailsStartup(SelfFallback.class, "work(String)", null,
				"its fallback 'work' is the locked method itself, which would then run without its lock");
	}

	@Test
	void fallbackWithItsOwnLock() {
		assertFailsStartup(LockedFallback.class, "a()", null,
				"its fallback viaB() has its own @DistributedLock, which would not apply");
	}

	@Test
	void skipWithAReturnTypeThatHasNoEmptyValue() {
		assertFailsStartup(SkipEnumSet.class, "run()", null,
				"onLocked = SKIP needs an empty java.util.EnumSet to return when the method is skipped");
	}

	@Test
	void holdAtLeastBeyondAnyDeadline() {
		assertFailsStartup(ForeverHold.class, "run()", null, "must be at most 36500 days, but was PT4800000H");
	}

	@Test
	void emptyInlineList() {
		assertFailsStartup(EmptyInlineList.class, "run()", "{}",
				"it is a constant whose value, [], can never be locked: it evaluated to an empty collection; there "
						+ "is nothing to lock");
	}

	@Test
	void constantThatCannotBeAKey() {
		assertFailsStartup(DotDotConstant.class, "run()", "'..'",
				"it is a constant whose value, '..', can never be locked: it gave an invalid key: Lock key must not "
						+ "be '..': ZooKeeper does not allow relative path segments");
		assertFailsStartup(BlankConstant.class, "run()", "'  '",
				"it is a constant whose value, '  ', can never be locked: it evaluated to '  '; a lock key must not "
						+ "be null or blank");
		assertFailsStartup(ListWithABadKey.class, "run()", "{'ok', 'a/b'}",
				"it is a constant whose value, [ok, a/b], can never be locked: it gave an invalid key: Lock key "
						+ "'a/b' contains '/' at index 1");
		assertFailsStartup(ControlCharacterConstant.class, "run()", "'a\u0007b'",
				"it is a constant whose value, 'a\\u0007b', can never be locked: it gave an invalid key: Lock key "
						+ "'a\\u0007b' contains control character U+0007 at index 1");
	}

	@Test
	void constantKeysThatCanWorkStart() throws Exception {
		try (AnnotationConfigApplicationContext context = start(ClassProxies.class, ValidConstants.class)) {
			ValidConstants valid = context.getBean(ValidConstants.class);
			assertThat(valid.one()).isEqualTo("one");
			assertThat(valid.several()).isEqualTo("several");
		}
	}

	@Test
	void expressionsThatCanWorkStart() throws Exception {
		try (AnnotationConfigApplicationContext context = start(ClassProxies.class, ValidExpressions.class)) {
			ValidExpressions valid = context.getBean(ValidExpressions.class);
			assertThat(
					valid.run("abc", new Order(new Customer("c-1")), List.of("x"), 7L, java.util.Map.of("tenant", "t")))
				.isEqualTo("ok");
		}
	}

	@Test
	void beanNotProxiedFailsStartup() {
		assertFailsStartup(InfrastructureService.class, "run()", null, "was not proxied");
	}

	@Test
	void missingRegistryFailsStartup() throws Exception {
		org.apache.curator.framework.CuratorFramework client = this.zk.newClient();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(org.apache.curator.framework.CuratorFramework.class, () -> client);
		context.register(NoRegistry.class);
		context.registerBean(Plain.class);
		assertThatThrownBy(context::refresh).hasMessageContaining("need a ZkLockRegistry bean");
		context.close();
	}

	@Test
	void targetThatIsAlreadyAJdkProxyIsLockedThroughItsInterface() throws Exception {
		for (Class<?> configuration : List.of(ClassProxies.class, InterfaceProxies.class)) {
			org.apache.curator.framework.CuratorFramework client = this.zk.newClient();
			try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
				context.registerBean(org.apache.curator.framework.CuratorFramework.class, () -> client);
				context.register(configuration);
				context.registerBean("repository", Repository.class,
						() -> (Repository) java.lang.reflect.Proxy.newProxyInstance(Repository.class.getClassLoader(),
								new Class<?>[] { Repository.class },
								(proxy, method, args) -> method.getName().equals("find") ? "found " + args[0] : null));
				context.refresh();
				Repository repository = context.getBean(Repository.class);
				ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
				assertThat(repository.find("r-1")).isEqualTo("found r-1");
				assertThat(org.springframework.aop.support.AopUtils.isAopProxy(repository)).isTrue();
				assertThat(registry.size()).isZero();
			}
		}
	}

	@Test
	void genericInterfaceMethodUnderInterfaceProxies() throws Exception {
		try (AnnotationConfigApplicationContext context = start(InterfaceProxies.class, OrderHandler.class)) {
			@SuppressWarnings("unchecked")
			Handler<Order> handler = context.getBean(Handler.class);
			assertThat(handler.handle(new Order(new Customer("c-2")))).isTrue();
		}
	}

	@Test
	void readSideOnACompletionStage() {
		assertFailsStartup(ReadAsync.class, "run()", null,
				"mode = READ holds the read side of a read/write lock, which belongs to the thread that took it, and it "
						+ "returns java.util.concurrent.CompletableFuture, whose work goes on after the method returns");
		assertThat(failure(ReadAsync.class).getAction()).contains("mode = EXCLUSIVE");
	}

	@Test
	void revocableOnACompletionStage() {
		assertFailsStartup(RevocableAsync.class, "run()", null,
				"revocable = true interrupts the thread that runs the method when its lock is asked back, and it "
						+ "returns java.util.concurrent.CompletableFuture");
	}

	@Test
	void writeSideOnAMono() {
		assertFailsStartup(WriteMono.class, "run()", null,
				"mode = WRITE holds the write side of a read/write lock, which belongs to the thread that took it, and "
						+ "it returns reactor.core.publisher.Mono");
	}

	@Test
	void readSideWithAMinimumHold() {
		assertFailsStartup(ReadWithMinimumHold.class, "run()", null,
				"mode = READ holds the read side of a read/write lock, which belongs to the thread that took it, and "
						+ "holdAtLeast would have the library keep it after the method ends");
	}

	@Test
	void oneKeyExpressionLockedExclusivelyAndForReadingFailsNamingBothMethods() {
		InvalidLockDeclarationException failure = failure(ExclusiveStock.class, ReadStock.class);
		assertThat(failure.getMethod()).isEqualTo(ReadStock.class.getName() + ".count(String)");
		assertThat(failure.getExpression()).isEqualTo("'stock:' + #sku");
		assertThat(failure.getMessage())
			.contains("it is locked with a read/write lock (@DistributedLock(mode = READ)), and "
					+ ExclusiveStock.class.getName() + ".order(String) locks the same key expression with an "
					+ "exclusive lock (@DistributedLock)")
			.contains("do not exclude each other");
		assertThat(failure.getAction()).contains("Lock the key one way in every method");
	}

	@Test
	void readAndWriteOnOneKeyExpressionStart() throws Exception {
		try (AnnotationConfigApplicationContext context = start(ClassProxies.class, ReadStock.class,
				WriteStock.class)) {
			assertThat(context.getBean(ReadStock.class).count("s-1")).isEqualTo(1);
		}
	}

	@Test
	void oneKeyExpressionAsALockAndASemaphore() {
		InvalidLockDeclarationException failure = failure(ExclusiveStock.class, SemaphoreStock.class);
		assertThat(failure.getAnnotation()).isEqualTo("@DistributedSemaphore");
		assertThat(failure.getMessage())
			.startsWith("Invalid @DistributedSemaphore on " + SemaphoreStock.class.getName() + ".reserve(String)")
			.contains("it is locked with a semaphore of 2 permits (@DistributedSemaphore(permits = 2))")
			.contains(ExclusiveStock.class.getName() + ".order(String)");
	}

	@Test
	void oneSemaphoreKeyExpressionWithTwoNumbersOfPermits() {
		InvalidLockDeclarationException failure = failure(SemaphoreStock.class, OtherSemaphoreStock.class);
		assertThat(failure.getMessage()).contains("it is locked with a semaphore of 3 permits")
			.contains("with a semaphore of 2 permits");
	}

	@Test
	void semaphoreWithoutPermits() {
		InvalidLockDeclarationException failure = failure(NoPermits.class);
		assertThat(failure.getMethod()).isEqualTo(NoPermits.class.getName() + ".run()");
		assertThat(failure.getMessage()).isEqualTo("Invalid @DistributedSemaphore on " + NoPermits.class.getName()
				+ ".run(): permits must be at least 1, but was 0: no call could ever run");
		assertThat(failure.getAction()).contains("permits = 2");
	}

	@Test
	void bothALockAndASemaphore() {
		InvalidLockDeclarationException failure = failure(LockAndSemaphore.class);
		assertThat(failure.getMethod()).isEqualTo(LockAndSemaphore.class.getName() + ".run()");
		assertThat(failure.getMessage()).contains("the method also has @DistributedLock");
	}

	@Test
	void semaphoreShareTheChecksOfLocks() {
		InvalidLockDeclarationException failure = failure(SemaphoreWithBareWord.class);
		assertThat(failure.getMessage()).startsWith("Invalid @DistributedSemaphore on "
				+ SemaphoreWithBareWord.class.getName() + ".run(String) with key expression \"renders\"");
		assertThat(failure(PrivateSemaphore.class).getProblem()).contains("the method is private");
	}

	private void assertFailsStartup(Class<?> service, String method, String expression, String problem) {
		InvalidLockDeclarationException failure = failure(service);
		assertThat(failure.getMethod()).isEqualTo(service.getName() + "." + method);
		assertThat(failure.getExpression()).isEqualTo(expression);
		assertThat(failure.getMessage()).startsWith("Invalid @DistributedLock on " + service.getName() + "." + method)
			.contains(problem);
		assertThat(failure.getAction()).isNotBlank();
	}

	private InvalidLockDeclarationException failure(Class<?>... services) {
		Throwable thrown = null;
		try (AnnotationConfigApplicationContext context = start(ClassProxies.class, services)) {
			// started: no failure
		}
		catch (Exception ex) {
			thrown = ex;
		}
		assertThat(thrown).as("startup of %s", List.of(services)).isNotNull();
		Throwable cause = thrown;
		while (cause.getCause() != null && !(cause instanceof InvalidLockDeclarationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).isInstanceOf(InvalidLockDeclarationException.class);
		return (InvalidLockDeclarationException) cause;
	}

	private AnnotationConfigApplicationContext start(Class<?> configuration, Class<?>... services) throws Exception {
		org.apache.curator.framework.CuratorFramework client = this.zk.newClient();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(org.apache.curator.framework.CuratorFramework.class, () -> client);
		context.register(configuration);
		for (Class<?> service : services) {
			context.registerBean(service);
		}
		try {
			context.refresh();
		}
		catch (RuntimeException ex) {
			context.close();
			throw ex;
		}
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	static class ClassProxies {

		@Bean
		ZkLockRegistry zkLockRegistry(org.apache.curator.framework.CuratorFramework client) {
			return new ZkLockRegistry(client);
		}

		@Bean
		Tenant tenant() {
			return new Tenant("t");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks
	static class InterfaceProxies {

		@Bean
		ZkLockRegistry zkLockRegistry(org.apache.curator.framework.CuratorFramework client) {
			return new ZkLockRegistry(client);
		}

	}

	public record Tenant(String name) {
	}

	public record Customer(String name) {
	}

	public record Order(Customer customer) {
	}

	public static class SelfFallback {

		@DistributedLock(key = "'self'", fallback = "work")
		public String work(String id) {
			return id;
		}

	}

	public static class LockedFallback {

		@DistributedLock(key = "'a'", fallback = "viaB")
		public String a() {
			return "a";
		}

		@DistributedLock(key = "'b'")
		public String viaB() {
			return "b";
		}

	}

	public enum Color {

		RED

	}

	public static class SkipEnumSet {

		@DistributedLock(key = "'k'", onLocked = dev.zklock.annotation.OnLocked.SKIP)
		public java.util.EnumSet<Color> run() {
			return java.util.EnumSet.of(Color.RED);
		}

	}

	public static class ForeverHold {

		@DistributedLock(key = "'k'", holdAtLeast = "200000d")
		public void run() {
		}

	}

	public static class ReadAsync {

		@DistributedLock(key = "'k'", mode = dev.zklock.template.LockMode.READ)
		public java.util.concurrent.CompletableFuture<String> run() {
			return java.util.concurrent.CompletableFuture.completedFuture("read");
		}

	}

	public static class RevocableAsync {

		@DistributedLock(key = "'k'", revocable = true)
		public java.util.concurrent.CompletableFuture<String> run() {
			return java.util.concurrent.CompletableFuture.completedFuture("done");
		}

	}

	public static class WriteMono {

		@DistributedLock(key = "'k'", mode = dev.zklock.template.LockMode.WRITE)
		public reactor.core.publisher.Mono<String> run() {
			return reactor.core.publisher.Mono.just("written");
		}

	}

	public static class ReadWithMinimumHold {

		@DistributedLock(key = "'k'", mode = dev.zklock.template.LockMode.READ, holdAtLeast = "10s")
		public void run() {
		}

	}

	public static class ExclusiveStock {

		@DistributedLock(key = "'stock:' + #sku")
		public void order(String sku) {
		}

	}

	public static class ReadStock {

		@DistributedLock(key = "'stock:' + #sku", mode = dev.zklock.template.LockMode.READ)
		public int count(String sku) {
			return 1;
		}

	}

	public static class WriteStock {

		@DistributedLock(key = "'stock:' + #sku", mode = dev.zklock.template.LockMode.WRITE)
		public void restock(String sku) {
		}

	}

	public static class SemaphoreStock {

		@dev.zklock.annotation.DistributedSemaphore(key = "'stock:' + #sku", permits = 2)
		public void reserve(String sku) {
		}

	}

	public static class OtherSemaphoreStock {

		@dev.zklock.annotation.DistributedSemaphore(key = "'stock:' + #sku", permits = 3)
		public void reserve(String sku) {
		}

	}

	public static class NoPermits {

		@dev.zklock.annotation.DistributedSemaphore(key = "'k'", permits = 0)
		public void run() {
		}

	}

	public static class LockAndSemaphore {

		@DistributedLock(key = "'k'")
		@dev.zklock.annotation.DistributedSemaphore(key = "'k'", permits = 2)
		public void run() {
		}

	}

	public static class SemaphoreWithBareWord {

		@dev.zklock.annotation.DistributedSemaphore(key = "renders", permits = 2)
		public void run(String id) {
		}

	}

	public static class PrivateSemaphore {

		@dev.zklock.annotation.DistributedSemaphore(key = "'k'", permits = 2)
		private void run() {
		}

	}

	public static class SkipPrimitive {

		@DistributedLock(key = "'k'", onLocked = dev.zklock.annotation.OnLocked.SKIP)
		public int count() {
			return 1;
		}

	}

	public static class MissingFallback {

		@DistributedLock(key = "'k'", fallback = "nowhere")
		public String run(String id) {
			return id;
		}

	}

	public static class FallbackWithOtherParameters {

		@DistributedLock(key = "'k'", fallback = "busy")
		public String run(String id, int quantity) {
			return id;
		}

		String busy(String id) {
			return id;
		}

	}

	public static class FallbackReturningOtherType {

		@DistributedLock(key = "'k'", fallback = "busy")
		public String run(String id) {
			return id;
		}

		Integer busy(String id) {
			return 0;
		}

	}

	public static class BothWaits {

		@DistributedLock(key = "'k'", waitAtMost = "2s", waitMs = 2000)
		public void run() {
		}

	}

	public static class NotADuration {

		@DistributedLock(key = "'k'", waitAtMost = "two seconds")
		public void run() {
		}

	}

	public static class UnresolvableHold {

		@DistributedLock(key = "'k'", holdAtLeast = "${app.no-such-hold}")
		public void run() {
		}

	}

	public static class PrivateMethod {

		@DistributedLock(key = "'k'")
		private void run() {
		}

	}

	public static class StaticMethod {

		@DistributedLock(key = "'k'")
		public static void run() {
		}

	}

	public static class FinalMethod {

		@DistributedLock(key = "'k'")
		public final void run() {
		}

	}

	public static final class FinalClass {

		@DistributedLock(key = "'k'")
		public void run() {
		}

	}

	public interface Service {

		void run();

	}

	public static class ServiceWithExtraMethod implements Service {

		@Override
		public void run() {
		}

		@DistributedLock(key = "'k'")
		public void extra() {
		}

	}

	public static class BareWord {

		@DistributedLock(key = "inventory")
		public void run(String sku) {
		}

	}

	public static class MissingBean {

		@DistributedLock(key = "@nosuchbean.name")
		public void run() {
		}

	}

	public static class MissingProperty {

		@DistributedLock(key = "#sku.nosuchprop")
		public void run(String sku) {
		}

	}

	public static class MissingNestedProperty {

		@DistributedLock(key = "#order.customer.nmae")
		public void run(Order order) {
		}

	}

	public static class MissingMethod {

		@DistributedLock(key = "#sku.toUpper()")
		public void run(String sku) {
		}

	}

	public static class MissingParameter {

		@DistributedLock(key = "'order:' + #orderId")
		public void run(String id) {
		}

	}

	public static class SyntaxError {

		@DistributedLock(key = "'a' + ")
		public void run(String id) {
		}

	}

	public static class ReturnsFuture {

		@DistributedLock(key = "'k'")
		public Future<String> run() {
			return null;
		}

	}

	public static class ReturnsStream {

		@DistributedLock(key = "'k'")
		public Stream<String> run() {
			return Stream.empty();
		}

	}

	public static class EmptyInlineList {

		@DistributedLock(key = "{}")
		public void run() {
		}

	}

	public static class DotDotConstant {

		@DistributedLock(key = "'..'")
		public void run() {
		}

	}

	public static class BlankConstant {

		@DistributedLock(key = "'  '")
		public void run() {
		}

	}

	public static class ListWithABadKey {

		@DistributedLock(key = "{'ok', 'a/b'}")
		public void run() {
		}

	}

	public static class ControlCharacterConstant {

		@DistributedLock(key = "'a\u0007b'")
		public void run() {
		}

	}

	public static class ValidConstants {

		@DistributedLock(key = "'inventory'")
		public String one() {
			return "one";
		}

		@DistributedLock(key = "{'stock:a', 'stock:b', 'stock:a'}")
		public String several() {
			return "several";
		}

	}

	public static class ValidExpressions {

		@DistributedLock(key = "{#sku.toUpperCase(), #order.customer.name, @tenant.name, #root.methodName,"
				+ " #root.targetClass.simpleName, T(java.lang.String).valueOf(#p0.length()), #tags[0], #tags.size(),"
				+ " #tags.?[#this == 'x'].size(), #sku?.length(), #root.args.length, #id.toString(), #tags.toString(),"
				+ " #m[tenant], @tenant.toString()}")
		public String run(String sku, Order order, List<String> tags, long id, java.util.Map<String, String> m) {
			return "ok";
		}

	}

	/** Marked as AOP infrastructure, which auto-proxy creators leave alone. */
	public static class InfrastructureService implements org.springframework.aop.framework.AopInfrastructureBean {

		@DistributedLock(key = "'k'")
		public void run() {
		}

	}

	public static class Plain {

		@DistributedLock(key = "'k'")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks
	static class NoRegistry {

	}

	public interface Repository {

		@DistributedLock(key = "'repo:' + #id")
		String find(String id);

	}

	public interface Handler<T> {

		boolean handle(T item);

	}

	public static class OrderHandler implements Handler<Order> {

		private final ZkLockRegistry registry;

		public OrderHandler(ZkLockRegistry registry) {
			this.registry = registry;
		}

		@Override
		@DistributedLock(key = "'order:' + #item.customer.name")
		public boolean handle(Order item) {
			return this.registry.obtain("order:" + item.customer().name()).isHeldByCurrentThread();
		}

	}

}
