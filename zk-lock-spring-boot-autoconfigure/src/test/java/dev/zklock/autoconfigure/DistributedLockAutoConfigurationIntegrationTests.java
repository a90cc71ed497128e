package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.aop.InvalidLockDeclarationException;
import dev.zklock.autoconfigure.diagnostics.ZkLockFailureAnalyzers;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code @DistributedLock} on real beans, with a real in-process ZooKeeper and, for the
 * transaction tests, an H2 database with a JDBC transaction manager.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class DistributedLockAutoConfigurationIntegrationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, AopAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.lock.default-wait=2s",
					"spring.datasource.url=jdbc:h2:mem:locks-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1")
			.withUserConfiguration(Services.class);
	}

	@Test
	void literalKeyLocksWhileMethodRuns() {
		runner().run((context) -> {
			Shop shop = context.getBean(Shop.class);
			assertThat(AopUtils.isCglibProxy(shop)).isTrue();
			assertThat(shop.literal()).isTrue();
			assertThat(context.getBean(ZkLockRegistry.class).obtain("inventory").isHeldByCurrentThread()).isFalse();
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/inventory")).isEmpty());
		});
	}

	@Test
	void spelKeysFromArgumentsNestedPropertiesRootAndBeans() {
		runner().run((context) -> {
			Shop shop = context.getBean(Shop.class);
			assertThat(shop.byName("42", 1)).isEqualTo("order:42");
			assertThat(shop.byNested(new Order(new Customer("c-7")))).isEqualTo("customer:c-7");
			assertThat(shop.byPosition("x", "y")).isEqualTo("y-x");
			assertThat(shop.byRoot()).isEqualTo("Shop.byRoot");
			assertThat(shop.byBean()).isEqualTo("tenant-a:bean");
		});
	}

	@Test
	void zeroWaitWhileAnotherProcessHoldsFailsWithClearMessage() throws Exception {
		ZkLockRegistry otherJvm = this.zk.newRegistry();
		ZkLock held = otherJvm.obtain("order:7");
		held.lock();
		try {
			// A default wait long enough to tell "one attempt" from "waited" on a loaded
			// machine
			Duration defaultWait = Duration.ofSeconds(8);
			runner().withPropertyValues("zklock.lock.default-wait=" + defaultWait.toSeconds() + "s").run((context) -> {
				Shop shop = context.getBean(Shop.class);
				long start = System.nanoTime();
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> shop.noWait("7"))
					.withMessageStartingWith(
							"Could not acquire lock 'order:7' (ZooKeeper path /locks/order:7) after waiting ")
					.withMessageContaining("held by another participant");
				// Catches waitMs = 0 waiting the default wait; half of it is headroom for
				// a loaded CI
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(defaultWait.dividedBy(2));
				assertThat(shop.calls()).isEmpty();
				long waited = System.nanoTime();
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> shop.byName("7", 1))
					.withMessageContaining("'order:7'");
				// Catches the default wait being cut short; a lower bound, so load cannot
				// break it
				assertThat(Duration.ofNanos(System.nanoTime() - waited)).isGreaterThan(defaultWait.minusMillis(100));
			});
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void zeroWaitWhileAnotherThreadHoldsFails() {
		runner().run((context) -> {
			Shop shop = context.getBean(Shop.class);
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("order:8");
			lock.lock();
			try {
				CompletableFuture<Void> other = CompletableFuture.runAsync(() -> shop.noWait("8"),
						TestThreads.EXECUTOR);
				// Catches a hang behind this thread's lock; far above the 2 s default
				// wait, for a loaded CI
				assertThatExceptionOfType(Exception.class).isThrownBy(() -> other.get(30, TimeUnit.SECONDS))
					.withRootCauseInstanceOf(LockAcquisitionException.class)
					.withMessageContaining("held by another thread of this JVM");
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Test
	void lockIsTakenBeforeTransactionBeginsAndReleasedAfterCommit() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			stock.setUp();
			stock.decrement("sku-1");
			assertThat(stock.events()).containsExactly("lock held, transaction active",
					"after commit: lock still held");
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForObject("select qty from stock where sku = 'sku-1'", Integer.class)).isEqualTo(9);
			assertThat(context.getBean(ZkLockRegistry.class).obtain("stock:sku-1").isHeldByCurrentThread()).isFalse();
		});
	}

	@Test
	void lockIsReleasedAfterRollback() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			stock.setUp();
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> stock.failAfterWrite("sku-1"));
			assertThat(stock.events()).containsExactly("after rollback: lock still held");
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForObject("select qty from stock where sku = 'sku-1'", Integer.class)).isEqualTo(10);
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/stock:sku-1")).isEmpty());
		});
	}

	@Test
	void reentrantThroughProxyOnSameThread() {
		runner().run((context) -> {
			Shop shop = context.getBean(Shop.class);
			assertThat(shop.outer("5")).isEqualTo("inner:5");
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/order:5")).isEmpty());
		});
	}

	@Test
	void annotationOnInterfaceMethodWithJdkAndClassProxies() {
		for (String proxyTargetClass : List.of("true", "false")) {
			runner().withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass).run((context) -> {
				Inventory inventory = context.getBean(Inventory.class);
				assertThat(AopUtils.isJdkDynamicProxy(inventory)).isEqualTo(proxyTargetClass.equals("false"));
				assertThat(inventory.reserve("sku-9")).isTrue();
			});
		}
	}

	@Test
	void annotationOnSuperclassMethod() {
		runner().run((context) -> assertThat(context.getBean(Refunds.class).refund("r-1")).isTrue());
	}

	@Test
	void nullOrBlankKeyAtRuntimeIsRejectedNamingMethodAndExpression() {
		runner().run((context) -> {
			Shop shop = context.getBean(Shop.class);
			assertThatIllegalArgumentException().isThrownBy(() -> shop.nullable(null))
				.withMessage("@DistributedLock key expression \"#sku\" on " + Shop.class.getName()
						+ ".nullable(String) evaluated to null; a lock key must not be null or blank");
			assertThatIllegalArgumentException().isThrownBy(() -> shop.nullable(" "))
				.withMessageContaining("evaluated to ' '");
			assertThatIllegalArgumentException().isThrownBy(() -> shop.nullable("a/b"))
				.withMessageContaining("gave an invalid key: Lock key 'a/b' contains '/'");
			assertThat(shop.calls()).isEmpty();
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks")).isEmpty());
		});
	}

	@Test
	void syntaxErrorFailsStartupNamingClassMethodAndExpression() {
		runner().withBean(BadSyntaxService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageStartingWith("Invalid @DistributedLock on " + BadSyntaxService.class.getName()
						+ ".run(String) with key expression \"'a' + \": it is not a valid SpEL expression");
		});
	}

	@Test
	void unknownParameterFailsStartupNamingClassMethodAndExpression() {
		runner().withBean(UnknownParameterService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessage("Invalid @DistributedLock on " + UnknownParameterService.class.getName()
						+ ".run(String) with key expression \"'order:' + #orderId\": it refers to #orderId, "
						+ "which the method does not have; its parameters are id");
		});
	}

	@Test
	void waitBelowMinusOneFailsStartup() {
		runner().withBean(BadWaitService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waitMs must be -1 (the default wait), 0 (one attempt) or positive, but was -2");
		});
	}

	@Test
	void invalidDeclarationIsReportedAsAFailureAnalysis() {
		runner().withBean(BareWordService.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).isEqualTo("@DistributedLock on " + BareWordService.class.getName()
					+ ".run(String) cannot work: its key expression \"inventory\" uses the bare word 'inventory', "
					+ "which is not a property of the expression's root object (its properties are args, method, "
					+ "methodName, target and targetClass).");
			assertThat(analysis.getAction())
				.startsWith("If 'inventory' is meant as text, put it in single quotes: " + "key = \"'inventory'\"");
		});
		runner().withBean(PrivateMethodService.class).run((context) -> {
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).isEqualTo("@DistributedLock on "
					+ PrivateMethodService.class.getName() + ".run() cannot work: the method is private, and "
					+ "Spring's proxies cannot intercept private methods: it would run without its lock.");
		});
	}

	@Test
	void constantKeysThatCanNeverBeLockedAreReportedAsFailureAnalyses() {
		runner().withBean(EmptyListService.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).isEqualTo("@DistributedLock on " + EmptyListService.class.getName()
					+ ".run() cannot work: its key expression \"{}\" is a constant whose value, [], can never be "
					+ "locked: it evaluated to an empty collection; there is nothing to lock.");
			assertThat(analysis.getAction()).contains("key = \"'inventory'\"");
		});
		runner().withBean(DotDotService.class).run((context) -> {
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).isEqualTo("@DistributedLock on " + DotDotService.class.getName()
					+ ".run() cannot work: its key expression \"'..'\" is a constant whose value, '..', can never be "
					+ "locked: it gave an invalid key: Lock key must not be '..': ZooKeeper does not allow relative "
					+ "path segments.");
		});
	}

	@Test
	void readWriteAndSemaphoreDeclarationsThatCannotWorkAreReportedAsFailureAnalyses() {
		runner().withBean(NoPermitsService.class).run((context) -> {
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription())
				.isEqualTo("@DistributedSemaphore on " + NoPermitsService.class.getName()
						+ ".run() cannot work: permits must be at least 1, but was 0: no call could ever run.");
			assertThat(analysis.getAction()).contains("permits = 2").endsWith(".");
		});
		runner().withBean(AsyncReadService.class).run((context) -> {
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).startsWith("@DistributedLock on " + AsyncReadService.class.getName()
					+ ".run() cannot work: mode = READ holds the read side of a read/write lock, which belongs to the "
					+ "thread that took it, and it returns java.util.concurrent.CompletableFuture");
		});
	}

	static Stream<Arguments> declarationsThatCannotWork() {
		return Stream.of(Arguments.of(PrivateMethodService.class, "run()", "the method is private"),
				Arguments.of(StaticMethodService.class, "run()", "the method is static"),
				Arguments.of(FinalMethodService.class, "run()", "the method is final"),
				Arguments.of(FinalClassService.class, "run()", "its class is final"),
				Arguments.of(BareWordService.class, "run(String)",
						"its key expression \"inventory\" uses the bare word 'inventory'"),
				Arguments.of(MissingBeanService.class, "run()",
						"its key expression \"@nosuchbean.name\" refers to the bean 'nosuchbean'"),
				Arguments.of(MissingPropertyService.class, "run(String)",
						"its key expression \"#sku.nosuchprop\" reads property 'nosuchprop' of #sku, a java.lang.String"),
				Arguments.of(MissingMethodService.class, "run(String)",
						"its key expression \"#sku.toUpper()\" calls toUpper() on #sku"),
				Arguments.of(UnknownParameterService.class, "run(String)", "refers to #orderId"),
				Arguments.of(StreamService.class, "run()", "it returns java.util.stream.Stream"),
				Arguments.of(FutureService.class, "run()", "it returns java.util.concurrent.Future"),
				Arguments.of(MissingFallbackService.class, "run(String)",
						"its fallback 'nowhere' cannot be called: there is no method named 'nowhere'"),
				Arguments.of(IncompatibleFallbackService.class, "run(String)",
						"its fallback busy(String) returns java.lang.Integer, which the method, returning "
								+ "java.lang.String, cannot return"),
				Arguments.of(BothWaitsService.class, "run()", "both waitAtMost (\"2s\") and waitMs (2000) are set"),
				Arguments.of(SkipPrimitiveService.class, "run()", "onLocked = SKIP needs something to return"),
				Arguments.of(ConfiguredWaitService.class, "run()",
						"waitAtMost \"${app.lock-wait}\" cannot be resolved"));
	}

	@Test
	void waitsAndMinimumHoldsComeFromConfiguration() {
		runner().withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class))
			.withPropertyValues("app.lock-wait=250ms")
			.withBean(ConfiguredWaitService.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ZkLock held = this.zk.newRegistry().obtain("configured");
				held.lock();
				try {
					long start = System.nanoTime();
					assertThatExceptionOfType(LockAcquisitionException.class)
						.isThrownBy(() -> context.getBean(ConfiguredWaitService.class).run())
						.satisfies((ex) -> assertThat(ex.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(250)));
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
				}
				finally {
					held.unlock();
				}
			});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("declarationsThatCannotWork")
	void everyDeclarationThatCannotWorkFailsStartupWithAnAnalysis(Class<?> service, String method, String problem) {
		runner().withBean(service).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = ZkLockFailureAnalyzers.invalidLockDeclaration()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getDescription())
				.startsWith("@DistributedLock on " + service.getName() + "." + method + " cannot work: ")
				.contains(problem)
				.endsWith(".");
			assertThat(analysis.getAction()).isNotBlank().endsWith(".").doesNotContain("\n");
		});
	}

	@Test
	void bootPrintsTheFailureReportRatherThanAStackTrace(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BadApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
		application.setDefaultProperties(java.util.Map.of("zklock.connect-string", this.zk.connectString()));
		assertThatExceptionOfType(Exception.class).isThrownBy(application::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("@DistributedLock on " + StreamService.class.getName() + ".run() cannot work: it returns "
					+ "java.util.stream.Stream")
			.contains("Action:");
	}

	@Test
	void disabledLibraryWarnsThatLockedMethodsRunUnlocked(CapturedOutput output) {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockAutoConfiguration.class, ZkLockDisabledAutoConfiguration.class))
			.withPropertyValues("zklock.enabled=false")
			.withBean("reports", Reports.class)
			.withBean("inventory", Inventory.class, () -> (sku) -> true)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce("zklock.enabled=false: ")
					.contains("zklock.enabled=false: 3 @DistributedLock methods will run WITHOUT a distributed lock "
							+ "(beans: inventory, reports)");
			});
	}

	record Customer(String id) {
	}

	record Order(Customer customer) {
	}

	public static class Shop {

		private final List<String> calls = new ArrayList<>();

		public List<String> calls() {
			return this.calls;
		}

		private final ObjectProvider<ZkLockRegistry> registry;

		private final ObjectProvider<Shop> self;

		public Shop(ObjectProvider<ZkLockRegistry> registry, ObjectProvider<Shop> self) {
			this.registry = registry;
			this.self = self;
		}

		@DistributedLock(key = "'inventory'")
		public boolean literal() {
			return this.registry.getObject().obtain("inventory").isHeldByCurrentThread();
		}

		@DistributedLock(key = "'order:' + #orderId")
		public String byName(String orderId, int quantity) {
			return held("order:" + orderId);
		}

		@DistributedLock(key = "'customer:' + #order.customer.id")
		public String byNested(Order order) {
			return held("customer:" + order.customer().id());
		}

		@DistributedLock(key = "#p1 + '-' + #a0")
		public String byPosition(String first, String second) {
			return held(second + "-" + first);
		}

		@DistributedLock(key = "#root.targetClass.simpleName + '.' + #root.methodName")
		public String byRoot() {
			return held("Shop.byRoot");
		}

		@DistributedLock(key = "@tenant.name + ':bean'")
		public String byBean() {
			return held("tenant-a:bean");
		}

		@DistributedLock(key = "'order:' + #id", waitMs = 0)
		public void noWait(String id) {
			this.calls.add("noWait");
		}

		@DistributedLock(key = "#sku")
		public void nullable(String sku) {
			this.calls.add("nullable");
		}

		@DistributedLock(key = "'order:' + #id")
		public String outer(String id) {
			return this.self.getObject().inner(id);
		}

		@DistributedLock(key = "'order:' + #id", waitMs = 0)
		public String inner(String id) {
			held("order:" + id);
			return "inner:" + id;
		}

		private String held(String key) {
			if (!this.registry.getObject().obtain(key).isHeldByCurrentThread()) {
				throw new IllegalStateException("Lock " + key + " not held inside the method");
			}
			return key;
		}

	}

	public record Tenant(String name) {
	}

	public static class Stock {

		private final List<String> events = new ArrayList<>();

		public List<String> events() {
			return this.events;
		}

		private final JdbcTemplate jdbc;

		private final ZkLockRegistry registry;

		public Stock(JdbcTemplate jdbc, ZkLockRegistry registry) {
			this.jdbc = jdbc;
			this.registry = registry;
		}

		public void setUp() {
			this.jdbc.execute("create table if not exists stock (sku varchar(20) primary key, qty int)");
			this.jdbc.update("merge into stock key (sku) values ('sku-1', 10)");
		}

		@DistributedLock(key = "'stock:' + #sku")
		@Transactional
		public void decrement(String sku) {
			if (this.registry.obtain("stock:" + sku).isHeldByCurrentThread()
					&& TransactionSynchronizationManager.isActualTransactionActive()) {
				this.events.add("lock held, transaction active");
			}
			this.jdbc.update("update stock set qty = qty - 1 where sku = ?", sku);
			recordLockAtCompletion(sku);
		}

		@Transactional
		@DistributedLock(key = "'stock:' + #sku")
		public void failAfterWrite(String sku) {
			this.jdbc.update("update stock set qty = qty - 1 where sku = ?", sku);
			recordLockAtCompletion(sku);
			throw new IllegalStateException("boom");
		}

		private void recordLockAtCompletion(String sku) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCompletion(int status) {
					boolean held = Stock.this.registry.obtain("stock:" + sku).isHeldByCurrentThread();
					Stock.this.events.add(((status == STATUS_COMMITTED) ? "after commit: " : "after rollback: ")
							+ (held ? "lock still held" : "lock already released"));
				}
			});
		}

	}

	public interface Inventory {

		@DistributedLock(key = "'reserve:' + #sku")
		boolean reserve(String sku);

	}

	public static class DefaultInventory implements Inventory {

		private final ZkLockRegistry registry;

		public DefaultInventory(ZkLockRegistry registry) {
			this.registry = registry;
		}

		@Override
		public boolean reserve(String sku) {
			return this.registry.obtain("reserve:" + sku).isHeldByCurrentThread();
		}

	}

	public abstract static class AbstractRefunds {

		@DistributedLock(key = "'refund:' + #id")
		public abstract boolean refund(String id);

	}

	public static class Refunds extends AbstractRefunds {

		private final ZkLockRegistry registry;

		public Refunds(ZkLockRegistry registry) {
			this.registry = registry;
		}

		@Override
		public boolean refund(String id) {
			return this.registry.obtain("refund:" + id).isHeldByCurrentThread();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Shop shop(ObjectProvider<ZkLockRegistry> registry, ObjectProvider<Shop> self) {
			return new Shop(registry, self);
		}

		@Bean
		Tenant tenant() {
			return new Tenant("tenant-a");
		}

		@Bean
		Stock stock(JdbcTemplate jdbc, ZkLockRegistry registry) {
			return new Stock(jdbc, registry);
		}

		@Bean
		Inventory inventory(ZkLockRegistry registry) {
			return new DefaultInventory(registry);
		}

		@Bean
		Refunds refunds(ZkLockRegistry registry) {
			return new Refunds(registry);
		}

	}

	public static class BadSyntaxService {

		@DistributedLock(key = "'a' + ")
		public void run(String id) {
		}

	}

	public static class UnknownParameterService {

		@DistributedLock(key = "'order:' + #orderId")
		public void run(String id) {
		}

	}

	public static class Reports {

		@DistributedLock(key = "'daily'")
		public void daily() {
		}

		@DistributedLock(key = "'weekly'")
		public void weekly() {
		}

	}

	public static class EmptyListService {

		@DistributedLock(key = "{}")
		public void run() {
		}

	}

	public static class DotDotService {

		@DistributedLock(key = "'..'")
		public void run() {
		}

	}

	public static class BareWordService {

		@DistributedLock(key = "inventory")
		public void run(String sku) {
		}

	}

	public static class NoPermitsService {

		@dev.zklock.annotation.DistributedSemaphore(key = "'k'", permits = 0)
		public void run() {
		}

	}

	public static class AsyncReadService {

		@DistributedLock(key = "'k'", mode = dev.zklock.template.LockMode.READ)
		public CompletableFuture<String> run() {
			return CompletableFuture.completedFuture("read");
		}

	}

	public static class PrivateMethodService {

		@DistributedLock(key = "'k'")
		private void run() {
		}

	}

	public static class StaticMethodService {

		@DistributedLock(key = "'k'")
		public static void run() {
		}

	}

	public static class FinalMethodService {

		@DistributedLock(key = "'k'")
		public final void run() {
		}

	}

	public static final class FinalClassService {

		@DistributedLock(key = "'k'")
		public void run() {
		}

	}

	public static class MissingBeanService {

		@DistributedLock(key = "@nosuchbean.name")
		public void run() {
		}

	}

	public static class MissingPropertyService {

		@DistributedLock(key = "#sku.nosuchprop")
		public void run(String sku) {
		}

	}

	public static class MissingMethodService {

		@DistributedLock(key = "#sku.toUpper()")
		public void run(String sku) {
		}

	}

	public static class MissingFallbackService {

		@DistributedLock(key = "'k'", fallback = "nowhere")
		public String run(String id) {
			return id;
		}

	}

	public static class IncompatibleFallbackService {

		@DistributedLock(key = "'k'", fallback = "busy")
		public String run(String id) {
			return id;
		}

		Integer busy(String id) {
			return 0;
		}

	}

	public static class BothWaitsService {

		@DistributedLock(key = "'k'", waitAtMost = "2s", waitMs = 2000)
		public void run() {
		}

	}

	public static class SkipPrimitiveService {

		@DistributedLock(key = "'k'", onLocked = dev.zklock.annotation.OnLocked.SKIP)
		public boolean run() {
			return true;
		}

	}

	public static class ConfiguredWaitService {

		@DistributedLock(key = "'configured'", waitAtMost = "${app.lock-wait}")
		public void run() {
		}

	}

	public static class FutureService {

		@DistributedLock(key = "'k'")
		public java.util.concurrent.Future<String> run() {
			return null;
		}

	}

	public static class StreamService {

		@DistributedLock(key = "'k'")
		public java.util.stream.Stream<String> run() {
			return java.util.stream.Stream.empty();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.boot.autoconfigure.EnableAutoConfiguration
	@org.springframework.context.annotation.Import(StreamService.class)
	static class BadApplication {

	}

	public static class BadWaitService {

		@DistributedLock(key = "'k'", waitMs = -2)
		public void run() {
		}

	}

}
