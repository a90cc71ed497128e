package dev.zklock.aop;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.TimingSensitive;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain Spring application ({@code @EnableDistributedLocks}, no Boot) closed right
 * after a {@code holdAtLeast} method ran keeps the lock until the minimum hold has
 * passed, whether the locked calls run through the application's own
 * {@link ZkLockTemplate} bean or through the one the advisor makes from its registry. The
 * other instance is another context with its own ZooKeeper session.
 */
@Timeout(60)
@TimingSensitive
class MinimumHoldShutdownTests {

	private static final Duration HOLD = Duration.ofSeconds(3);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	private AnnotationConfigApplicationContext other;

	@AfterEach
	void close() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
		if (this.other != null) {
			this.other.close();
		}
	}

	private AnnotationConfigApplicationContext start(boolean templateBean) throws Exception {
		return LockedContext.start(this.zk, (context) -> {
			if (templateBean) {
				context.registerBean(ZkLockTemplate.class,
						() -> new ZkLockTemplate(context.getBean(ZkLockRegistry.class), ObservationRegistry.NOOP));
			}
			context.registerBean(Job.class);
		});
	}

	@ParameterizedTest(name = "template bean: {0}")
	@ValueSource(booleans = { true, false })
	void closingTheContextKeepsTheMinimumHold(boolean templateBean) throws Exception {
		AnnotationConfigApplicationContext closing = start(templateBean);
		this.other = start(templateBean);
		Job otherJob = this.other.getBean(Job.class);
		long start = System.nanoTime();
		assertThat(closing.getBean(Job.class).run()).isEqualTo("ran");
		assertThat(otherJob.run()).as("the other instance while the hold lasts").isNull();
		// The other instance tries every few milliseconds while the first closes
		Future<Long> otherRan = this.executor.submit(() -> {
			while (otherJob.run() == null) {
				Thread.sleep(10);
			}
			return System.nanoTime();
		});
		long closeStart = System.nanoTime();
		closing.close();
		long closeEnd = System.nanoTime();
		long ranAt = otherRan.get(20, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(ranAt - start)).as("other instance's run after the first one's start")
			.isGreaterThanOrEqualTo(HOLD);
		assertThat(Duration.ofNanos(closeEnd - start)).as("end of the close after the first run's start")
			.isGreaterThanOrEqualTo(HOLD)
			.isLessThan(HOLD.plusSeconds(5));
		assertThat(otherJob.runs()).isOne();
		System.out.println(
				"Template bean " + templateBean + ": close took " + TimeUnit.NANOSECONDS.toMillis(closeEnd - closeStart)
						+ " ms, the other instance ran " + TimeUnit.NANOSECONDS.toMillis(ranAt - start)
						+ " ms after the first run's start (hold " + HOLD.toMillis() + " ms)");
	}

	static class Job {

		private final AtomicInteger runs = new AtomicInteger();

		@DistributedLock(key = "'report'", waitAtMost = "0s", onLocked = OnLocked.SKIP, holdAtLeast = "3s")
		public String run() {
			this.runs.incrementAndGet();
			return "ran";
		}

		public int runs() {
			return this.runs.get();
		}

	}

}
