package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;
import dev.zklock.autoconfigure.shedlock.ZkLockShedLockAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.TimingSensitive;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 34's scenario: two instances of an application (two application contexts, each
 * with its own Curator client, so its own ZooKeeper session, on one real ZooKeeper)
 * schedule the same job every {@value #TICK_MS} ms with {@code onLocked = SKIP} and a
 * minimum hold, through {@code @DistributedLock(holdAtLeast)} or ShedLock's
 * {@code lockAtLeastFor}. The instance that just ran the job is shut down gracefully
 * right after the run; the other must not run the job before the minimum hold has passed,
 * and the shutdown takes about what the hold had left, unless the shutdown phase's
 * timeout is shorter.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
@TimingSensitive
class MinimumHoldShutdownTests {

	private static final long TICK_MS = 50;

	private static final Duration WORK = Duration.ofMillis(220);

	/**
	 * A run's recorded start comes after its lock was acquired, by however long the
	 * thread took to get there: tens of milliseconds on a loaded machine. Without the
	 * wait at shutdown the other instance runs about one tick after the run ended.
	 */
	private static final long START_SLACK_MS = 250;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final BlockingQueue<Run> runs = new LinkedBlockingQueue<>();

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@AfterEach
	void closeContexts() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void theOtherInstanceRunsTheJobOnlyOnceTheMinimumHoldHasPassed(CapturedOutput output) throws Exception {
		Duration hold = Duration.ofSeconds(2);
		Shutdown shutdown = runThenShutDown(AnnotatedJob.class, hold, Duration.ofSeconds(30));
		assertThat(shutdown.nextRunGapMs()).as("gap between the start of the last run and the other instance's run")
			.isGreaterThanOrEqualTo(hold.toMillis() - START_SLACK_MS);
		assertHeldUntilTheEnd(shutdown, hold);
		assertThat(waitLines(output, "ZkLockTemplate")).as("INFO lines naming the holds waited for")
			.singleElement(InstanceOfAssertFactories.STRING)
			.containsPattern("\\bINFO\\b")
			.contains("waiting for 1 minimum hold: lock 'nightly-report' on key 'nightly-report', ")
			.contains(" ms left");
		assertThat(output.toString()).doesNotContain("cut 1 minimum hold short");
	}

	@Test
	void aShutdownPhaseTimeoutShorterThanTheHoldCutsIt(CapturedOutput output) throws Exception {
		Duration hold = Duration.ofSeconds(5);
		Duration phaseTimeout = Duration.ofMillis(500);
		Shutdown shutdown = runThenShutDown(AnnotatedJob.class, hold, phaseTimeout);
		// Released once the phase has timed out, well before the hold would have ended
		assertThat(shutdown.closeMs()).as("time the graceful close took")
			.isGreaterThanOrEqualTo(phaseTimeout.toMillis())
			.isLessThan(hold.toMillis() - WORK.toMillis() - 1000);
		assertThat(shutdown.next.start - shutdown.closeStart).as("other instance's run after the close began")
			.isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(phaseTimeout.toMillis()));
		assertThat(shutdown.nextRunGapMs()).as("gap between the start of the last run and the other instance's run")
			.isLessThan(hold.toMillis());
		assertThat(waitLines(output, "ZkLockTemplate")).hasSize(1);
		assertThat(output.toString()).containsPattern("\\bWARN\\b.*ZkLockTemplate cut 1 minimum hold short, as the "
				+ "shutdown phase's timeout ended the stop's wait first .*: lock 'nightly-report' on key "
				+ "'nightly-report', \\d+ ms early");
	}

	@Test
	void shedLocksLockAtLeastForOutlivesTheShutdownToo(CapturedOutput output) throws Exception {
		Duration hold = Duration.ofSeconds(2);
		Shutdown shutdown = runThenShutDown(ShedLockJob.class, hold, Duration.ofSeconds(30));
		assertThat(shutdown.nextRunGapMs()).as("gap between the start of the last run and the other instance's run")
			.isGreaterThanOrEqualTo(hold.toMillis() - START_SLACK_MS);
		assertHeldUntilTheEnd(shutdown, hold);
		assertThat(waitLines(output, "ZkLockShedLockProvider")).as("INFO lines naming the holds waited for")
			.singleElement(InstanceOfAssertFactories.STRING)
			.containsPattern("\\bINFO\\b")
			.contains("waiting for 1 minimum hold: lock 'nightly-report' on key 'nightly-report', ");
		assertThat(output.toString()).doesNotContain("cut 1 minimum hold short");
	}

	/**
	 * The graceful close waited for the hold's end, not for the phase's timeout.
	 */
	private static void assertHeldUntilTheEnd(Shutdown shutdown, Duration hold) {
		long holdEnd = shutdown.last.start + hold.toNanos();
		assertThat(TimeUnit.NANOSECONDS.toMillis(shutdown.closeEnd - holdEnd))
			.as("end of the graceful close after the end of the minimum hold")
			.isGreaterThanOrEqualTo(-START_SLACK_MS)
			.isLessThan(5000);
		System.out.println("Minimum hold " + hold.toMillis() + " ms, run " + WORK.toMillis() + " ms: close began "
				+ TimeUnit.NANOSECONDS.toMillis(shutdown.closeStart - shutdown.last.start)
				+ " ms after the run's start and took " + shutdown.closeMs() + " ms; the other instance ran "
				+ shutdown.nextRunGapMs() + " ms after the run's start");
	}

	private static List<String> waitLines(CapturedOutput output, String owner) {
		List<String> lines = new ArrayList<>();
		for (String line : output.toString().split("\\R")) {
			if (line.contains(owner + " stops once its minimum holds have ended")) {
				lines.add(line);
			}
		}
		return lines;
	}

	/**
	 * Start two instances, wait for a run that starts once both compete, close the
	 * instance that ran it as soon as the run ends, and wait for the other's next run.
	 */
	private Shutdown runThenShutDown(Class<?> job, Duration hold, Duration phaseTimeout) throws InterruptedException {
		ConfigurableApplicationContext first = start(job, "first", hold, phaseTimeout);
		ConfigurableApplicationContext second = start(job, "second", hold, phaseTimeout);
		long bothRunning = System.nanoTime();
		Run last = nextRun((run) -> run.start - bothRunning > 0, "a run once both instances run");
		ConfigurableApplicationContext ran = last.instance.equals("first") ? first : second;
		long closeStart = System.nanoTime();
		ran.close();
		long closeEnd = System.nanoTime();
		Run next = nextRun((run) -> !run.instance.equals(last.instance), "a run by the other instance");
		return new Shutdown(last, closeStart, closeEnd, next);
	}

	private ConfigurableApplicationContext start(Class<?> job, String instance, Duration hold, Duration phaseTimeout) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Instance.class, job)
			.web(WebApplicationType.NONE)
			.registerShutdownHook(false)
			.initializers(
					(applicationContext) -> applicationContext.getBeanFactory().registerSingleton("runs", this.runs))
			.properties("zklock.connect-string=" + this.zk.connectString(), "spring.main.banner-mode=off",
					"job.instance=" + instance, "job.tick=" + TICK_MS, "job.hold=" + hold.toMillis() + "ms",
					"job.work=" + WORK.toMillis() + "ms",
					"spring.lifecycle.timeout-per-shutdown-phase=" + phaseTimeout.toMillis() + "ms")
			.run();
		this.contexts.add(context);
		return context;
	}

	private Run nextRun(Predicate<Run> wanted, String description) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			Run run = this.runs.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			assertThat(run).as(description).isNotNull();
			if (wanted.test(run)) {
				return run;
			}
		}
	}

	/**
	 * One run of the job: which instance, and when it started and ended.
	 */
	record Run(String instance, long start, long end) {
	}

	record Shutdown(Run last, long closeStart, long closeEnd, Run next) {

		long closeMs() {
			return TimeUnit.NANOSECONDS.toMillis(this.closeEnd - this.closeStart);
		}

		long nextRunGapMs() {
			return TimeUnit.NANOSECONDS.toMillis(this.next.start - this.last.start);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class, LifecycleAutoConfiguration.class,
			TaskSchedulingAutoConfiguration.class, AopAutoConfiguration.class, ZkLockAutoConfiguration.class,
			ZkLockShedLockAutoConfiguration.class })
	static class Instance {

	}

	/**
	 * Records a run of the job.
	 */
	abstract static class Job {

		private final BlockingQueue<Run> runs;

		private final String instance;

		private final Duration work;

		Job(BlockingQueue<Run> runs, String instance, Duration work) {
			this.runs = runs;
			this.instance = instance;
			this.work = work;
		}

		void work() {
			long start = System.nanoTime();
			try {
				Thread.sleep(this.work.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.runs.add(new Run(this.instance, start, System.nanoTime()));
		}

	}

	@Component
	static class AnnotatedJob extends Job {

		AnnotatedJob(BlockingQueue<Run> runs, @Value("${job.instance}") String instance,
				@Value("${job.work}") Duration work) {
			super(runs, instance, work);
		}

		@Scheduled(fixedRateString = "${job.tick}")
		@DistributedLock(key = "'nightly-report'", name = "nightly-report", waitAtMost = "0s", onLocked = OnLocked.SKIP,
				holdAtLeast = "${job.hold}")
		public void run() {
			work();
		}

	}

	@Component
	static class ShedLockJob extends Job {

		private final LockingTaskExecutor executor;

		private final Duration hold;

		ShedLockJob(BlockingQueue<Run> runs, @Value("${job.instance}") String instance,
				@Value("${job.work}") Duration work, @Value("${job.hold}") Duration hold, LockProvider lockProvider) {
			super(runs, instance, work);
			this.executor = new DefaultLockingTaskExecutor(lockProvider);
			this.hold = hold;
		}

		@Scheduled(fixedRateString = "${job.tick}")
		public void run() {
			this.executor.executeWithLock((Runnable) this::work,
					new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofMinutes(1), this.hold));
		}

	}

}
