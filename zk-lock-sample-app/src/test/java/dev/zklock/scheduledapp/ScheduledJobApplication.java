package dev.zklock.scheduledapp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.awaitility.core.ConditionTimeoutException;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import static org.awaitility.Awaitility.await;

/**
 * The ShedLock pattern on the starter, run as several instances by
 * {@code ScheduledJobAcrossJvmsTests}: every instance schedules the same job, and the
 * lock lets one of them run it per tick. Each instance records its runs (wall-clock start
 * and end, one machine so one clock) and, at the end, its {@code zklock.acquire} counts
 * by outcome. It waits until every instance has started before its time runs, so that
 * they compete.
 */
@SpringBootApplication
@EnableScheduling
public class ScheduledJobApplication {

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = SpringApplication.run(ScheduledJobApplication.class, args);
		Path dir = Path.of(context.getEnvironment().getRequiredProperty("job.dir"));
		String id = context.getEnvironment().getRequiredProperty("job.id");
		int instances = context.getEnvironment().getRequiredProperty("job.instances", Integer.class);
		Duration runFor = context.getEnvironment().getRequiredProperty("job.run-for", Duration.class);
		Files.writeString(dir.resolve("ready-" + id), "");
		try {
			await("all " + instances + " instances ready").atMost(Duration.ofSeconds(120))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> countReady(dir) >= instances);
		}
		catch (ConditionTimeoutException ex) {
			// Fail the run, not hang it: the scheduler's threads would keep this JVM
			// alive
			ex.printStackTrace();
			System.exit(SpringApplication.exit(context, () -> 1));
		}
		Thread.sleep(runFor.toMillis());
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		StringBuilder counts = new StringBuilder();
		for (String outcome : new String[] { "acquired", "skipped", "timeout", "error" }) {
			Search search = meters.find("zklock.acquire").tag("lock.name", "nightly-report").tag("outcome", outcome);
			long count = (search.timer() != null) ? search.timer().count() : 0;
			counts.append(outcome).append('=').append(count).append('\n');
		}
		Files.writeString(dir.resolve("metrics-" + id), counts);
		System.exit(SpringApplication.exit(context));
	}

	private static long countReady(Path dir) throws java.io.IOException {
		try (var files = Files.list(dir)) {
			return files.filter((file) -> file.getFileName().toString().startsWith("ready-")).count();
		}
	}

	/**
	 * The job every instance schedules.
	 */
	@Component
	public static class NightlyReport {

		private final Path runs;

		private final Duration work;

		public NightlyReport(@Value("${job.dir}") Path dir, @Value("${job.id}") String id,
				@Value("${job.work}") Duration work) {
			this.runs = dir.resolve("runs-" + id);
			this.work = work;
		}

		@Scheduled(fixedRateString = "${job.tick}")
		@DistributedLock(key = "'nightly-report'", name = "nightly-report", waitMs = 0, onLocked = OnLocked.SKIP,
				holdAtLeast = "${job.hold}")
		public void run() throws Exception {
			long start = System.currentTimeMillis();
			Thread.sleep(this.work.toMillis());
			long end = System.currentTimeMillis();
			Files.writeString(this.runs, start + " " + end + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}

	}

}
