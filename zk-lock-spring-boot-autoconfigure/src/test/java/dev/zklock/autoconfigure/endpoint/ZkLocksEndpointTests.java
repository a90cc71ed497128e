package dev.zklock.autoconfigure.endpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.template.LockContext;
import dev.zklock.template.LockMode;
import dev.zklock.annotation.OnLocked;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.endpoint.ZkLocksEndpoint.LocalLock;
import dev.zklock.autoconfigure.metrics.ZkLockMetricsAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code zklocks} endpoint shows what a locked method sees of its own lock: the same
 * fencing token, and the lock's name; and what was taken: the recipe, how many holds
 * (readers, permits) this JVM has, and a semaphore's permits; and every call waiting for
 * a lock, as many as the {@code zklock.waiting} meter counts.
 */
@Timeout(60)
class ZkLocksEndpointTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, AopAutoConfiguration.class,
					ZkLocksEndpointAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(),
					"management.endpoints.web.exposure.include=zklocks")
			.withUserConfiguration(Config.class);
	}

	@Test
	void theEndpointShowsTheTokenAndNameTheMethodSees() {
		runner().run((context) -> {
			Restocker restocker = context.getBean(Restocker.class);
			Restocker.Seen seen = restocker.restock("sku-7");
			assertThat(seen.fromContext()).isPositive();
			assertThat(seen.listed().key()).isEqualTo("stock:sku-7");
			assertThat(seen.listed().held()).isTrue();
			assertThat(seen.listed().fencingToken()).isEqualTo(seen.fromContext());
			assertThat(seen.listed().name()).isEqualTo("Restocker.restock");
			assertThat(seen.listed().kind()).isEqualTo(LockKind.EXCLUSIVE);
			assertThat(seen.listed().holds()).isOne();
			assertThat(seen.listed().permits()).isZero();
			// Once the method has returned, nothing is held, so nothing is named
			assertThat(context.getBean(ZkLocksEndpoint.class).locks().locks()).isEmpty();
		});
	}

	@Test
	void aLingeringNodeIsListedAsLingeringNotHeld() {
		runner().withPropertyValues("zklock.lock.linger=10m").run((context) -> {
			Restocker.Seen seen = context.getBean(Restocker.class).restock("sku-8");
			assertThat(seen.listed().lingering()).isFalse();
			assertThat(context.getBean(ZkLocksEndpoint.class).locks().locks()).singleElement().satisfies((lock) -> {
				assertThat(lock.key()).isEqualTo("stock:sku-8");
				assertThat(lock.held()).isFalse();
				assertThat(lock.lingering()).isTrue();
				assertThat(lock.name()).isNull();
				assertThat(lock.nodePath()).isEqualTo(seen.listed().nodePath());
				assertThat(lock.fencingToken()).isEqualTo(seen.fromContext());
			});
		});
	}

	@Test
	void aMinimumHoldIsListedUnderItsNameUntilItEnds() {
		runner().run((context) -> {
			ZkLocksEndpoint endpoint = context.getBean(ZkLocksEndpoint.class);
			context.getBean(Restocker.class).nightly();
			assertThat(endpoint.locks().locks()).singleElement().satisfies((lock) -> {
				assertThat(lock.key()).isEqualTo("nightly");
				assertThat(lock.name()).isEqualTo("nightly-report");
				assertThat(lock.held()).isTrue();
				assertThat(lock.holderThread()).isNull();
			});
			eventually().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(endpoint.locks().locks()).isEmpty());
		});
	}

	@Test
	void readersOfAReadWriteLockAreCountedAsHolds() {
		runner().run((context) -> {
			Restocker restocker = context.getBean(Restocker.class);
			ZkLocksEndpoint endpoint = context.getBean(ZkLocksEndpoint.class);
			CountDownLatch bothInside = new CountDownLatch(2);
			CountDownLatch leave = new CountDownLatch(1);
			ExecutorService executor = Executors.newFixedThreadPool(2);
			try {
				List<Future<?>> readers = new ArrayList<>();
				for (int i = 0; i < 2; i++) {
					readers.add(executor.submit(() -> restocker.read(() -> {
						bothInside.countDown();
						await(leave);
					})));
				}
				assertThat(bothInside.await(20, TimeUnit.SECONDS)).isTrue();
				assertThat(endpoint.locks().locks()).singleElement().satisfies((lock) -> {
					assertThat(lock.key()).isEqualTo("catalog");
					assertThat(lock.kind()).isEqualTo(LockKind.READ_WRITE);
					assertThat(lock.held()).isTrue();
					assertThat(lock.holds()).isEqualTo(2);
					assertThat(lock.permits()).isZero();
					assertThat(lock.holderThread()).isNull();
					assertThat(lock.name()).isEqualTo("Restocker.read");
				});
				leave.countDown();
				for (Future<?> reader : readers) {
					reader.get(20, TimeUnit.SECONDS);
				}
			}
			finally {
				leave.countDown();
				executor.shutdownNow();
			}
			eventually().untilAsserted(() -> assertThat(endpoint.locks().locks()).isEmpty());
		});
	}

	@Test
	void aSemaphoreShowsItsPermitsAndTheLeasesThisJvmHolds() {
		runner().run((context) -> {
			LocalLock listed = context.getBean(Restocker.class).render();
			assertThat(listed.kind()).isEqualTo(LockKind.SEMAPHORE);
			assertThat(listed.held()).isTrue();
			assertThat(listed.holds()).isOne();
			assertThat(listed.permits()).isEqualTo(3);
			assertThat(listed.name()).isEqualTo("renders");
			assertThat(listed.holderThread()).isNull();
		});
	}

	@Test
	void everyCallWaitingBehindAnotherParticipantIsListedAsTheMeterCountsIt() throws Exception {
		ZkLockRegistry otherJvm = this.zk.newRegistry();
		ZkLock busy = otherJvm.obtain("stock:busy");
		busy.lock();
		runner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
							CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
			.run((context) -> {
				Restocker restocker = context.getBean(Restocker.class);
				ZkLocksEndpoint endpoint = context.getBean(ZkLocksEndpoint.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				ExecutorService executor = Executors.newFixedThreadPool(2, named("restock-waiter-"));
				try {
					// The first waits for its turn in ZooKeeper, the second in this JVM's
					// queue behind it: both are waiting calls
					Future<?> first = executor.submit(() -> restocker.queue("busy"));
					eventually().untilAsserted(() -> assertWaiting(endpoint, meters, "stock:busy", 1));
					Future<?> second = executor.submit(() -> restocker.queue("busy"));
					eventually().untilAsserted(() -> assertWaiting(endpoint, meters, "stock:busy", 2));
					busy.unlock();
					first.get(20, TimeUnit.SECONDS);
					second.get(20, TimeUnit.SECONDS);
					eventually().untilAsserted(() -> {
						assertThat(meters.get("zklock.waiting").gauge().value()).isZero();
						assertThat(endpoint.locks().locks()).isEmpty();
					});
				}
				finally {
					executor.shutdownNow();
				}
			});
		if (busy.isHeldByCurrentThread()) {
			busy.unlock();
		}
	}

	private static void assertWaiting(ZkLocksEndpoint endpoint, MeterRegistry meters, String key, int calls) {
		assertThat(meters.get("zklock.waiting").gauge().value()).isEqualTo(calls);
		assertThat(endpoint.locks().locks()).singleElement().satisfies((lock) -> {
			assertThat(lock.key()).isEqualTo(key);
			assertThat(lock.held()).isFalse();
			assertThat(lock.name()).isNull();
			assertThat(lock.waiters()).isEqualTo(calls);
			assertThat(lock.waiting()).hasSize(calls).allSatisfy((waiter) -> {
				assertThat(waiter.thread()).startsWith("restock-waiter-");
				assertThat(waiter.mode()).isEqualTo(LocalWaiter.Mode.EXCLUSIVE);
				assertThat(waiter.since()).isNotNull();
			});
		});
	}

	private static ThreadFactory named(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (task) -> new Thread(task, prefix + count.incrementAndGet());
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not released in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	public static class Restocker {

		private final ObjectProvider<ZkLocksEndpoint> endpoint;

		public Restocker(ObjectProvider<ZkLocksEndpoint> endpoint) {
			this.endpoint = endpoint;
		}

		@DistributedLock(key = "'stock:' + #sku")
		public Seen restock(String sku) {
			long token = LockContext.current().fencingToken();
			LocalLock listed = this.endpoint.getObject()
				.locks()
				.locks()
				.stream()
				.filter((lock) -> lock.key().equals("stock:" + sku))
				.findFirst()
				.orElseThrow();
			return new Seen(token, listed);
		}

		@DistributedLock(key = "'stock:' + #sku", waitAtMost = "30s")
		public void queue(String sku) {
		}

		@DistributedLock(key = "'catalog'", mode = LockMode.READ, waitAtMost = "20s")
		public void read(Runnable inside) {
			inside.run();
		}

		@DistributedSemaphore(key = "'render'", permits = 3, name = "renders")
		public LocalLock render() {
			return this.endpoint.getObject()
				.locks()
				.locks()
				.stream()
				.filter((lock) -> lock.key().equals("render"))
				.findFirst()
				.orElseThrow();
		}

		@DistributedLock(key = "'nightly'", name = "nightly-report", waitMs = 0, onLocked = OnLocked.SKIP,
				holdAtLeast = "5s")
		public void nightly() {
		}

		public record Seen(long fromContext, LocalLock listed) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Restocker restocker(ObjectProvider<ZkLocksEndpoint> endpoint) {
			return new Restocker(endpoint);
		}

	}

}
