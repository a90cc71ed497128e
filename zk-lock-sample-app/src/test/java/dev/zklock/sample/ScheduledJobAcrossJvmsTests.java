package dev.zklock.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.ChildJvm;
import dev.zklock.embedded.EmbeddedZooKeeper;
import dev.zklock.scheduledapp.ScheduledJobApplication;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of an application schedule the same job every {@value #TICK_MS} ms with
 * {@code @DistributedLock(waitMs = 0, onLocked = SKIP, holdAtLeast = ...)}: across both,
 * runs never overlap and never start closer together than the minimum hold, the instances
 * skip quietly (nothing at WARN or ERROR), and skips are counted as {@code skipped}.
 */
@Timeout(240)
class ScheduledJobAcrossJvmsTests {

	private static final long TICK_MS = 200;

	private static final long HOLD_MS = 1200;

	private static final long WORK_MS = 100;

	/**
	 * A run's recorded start comes after its lock was acquired, by however long the
	 * thread took to get there; on a loaded machine that can be tens of milliseconds.
	 * Without the minimum hold the gap would be one tick ({@value #TICK_MS} ms).
	 */
	private static final long START_SLACK_MS = 250;

	@TempDir
	Path dir;

	@Test
	void oneInstanceRunsTheJobPerHoldAndTheOthersSkipQuietly() throws Exception {
		int instances = 2;
		List<Process> processes = new ArrayList<>();
		List<Path> logs = new ArrayList<>();
		try (EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(0, this.dir.resolve("zk"))) {
			for (int i = 0; i < instances; i++) {
				Path log = this.dir.resolve("jvm-" + i + ".log");
				logs.add(log);
				processes.add(ChildJvm.start(ScheduledJobApplication.class, log,
						"--zklock.connect-string=" + zooKeeper.getConnectString(), "--zklock.embedded.enabled=false",
						"--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
						"--job.dir=" + this.dir, "--job.id=" + i, "--job.instances=" + instances, "--job.run-for=8s",
						"--job.tick=" + TICK_MS, "--job.hold=" + HOLD_MS + "ms", "--job.work=" + WORK_MS + "ms"));
			}
			ChildJvm.awaitSuccess(processes, logs, Duration.ofSeconds(200));
		}
		List<long[]> runs = new ArrayList<>();
		for (int i = 0; i < instances; i++) {
			Path file = this.dir.resolve("runs-" + i);
			if (Files.exists(file)) {
				for (String line : Files.readAllLines(file)) {
					String[] parts = line.trim().split(" ");
					runs.add(new long[] { Long.parseLong(parts[0]), Long.parseLong(parts[1]), i });
				}
			}
		}
		runs.sort(Comparator.comparingLong((long[] run) -> run[0]));
		// 8 s together at one run per 1.2 s, plus each instance's time alone before the
		// other started
		assertThat(runs).hasSizeGreaterThanOrEqualTo(5);
		for (int i = 1; i < runs.size(); i++) {
			long[] previous = runs.get(i - 1);
			long[] run = runs.get(i);
			assertThat(run[0]).as("run %d (JVM %d) starts after run %d (JVM %d) ended", i, run[2], i - 1, previous[2])
				.isGreaterThanOrEqualTo(previous[1]);
			assertThat(run[0] - previous[0]).as("gap between the starts of runs %d and %d", i - 1, i)
				.isGreaterThanOrEqualTo(HOLD_MS - START_SLACK_MS);
		}
		long skipped = 0;
		for (int i = 0; i < instances; i++) {
			Properties metrics = new Properties();
			try (var reader = Files.newBufferedReader(this.dir.resolve("metrics-" + i))) {
				metrics.load(reader);
			}
			assertThat(Long.parseLong(metrics.getProperty("timeout"))).as("JVM %d timeouts", i).isZero();
			assertThat(Long.parseLong(metrics.getProperty("error"))).as("JVM %d errors", i).isZero();
			skipped += Long.parseLong(metrics.getProperty("skipped"));
			List<String> loud = Files.readAllLines(logs.get(i))
				.stream()
				.filter((line) -> line.contains(" WARN ") || line.contains(" ERROR "))
				.toList();
			assertThat(loud).as("WARN and ERROR lines of JVM %d", i).isEmpty();
		}
		StringBuilder summary = new StringBuilder(
				"Scheduled job across " + instances + " JVMs: " + runs.size() + " runs (by JVM:");
		runs.forEach((run) -> summary.append(' ').append(run[2]));
		summary.append("), ")
			.append(skipped)
			.append(" skips, smallest gap between starts ")
			.append(java.util.stream.IntStream.range(1, runs.size())
				.mapToLong((i) -> runs.get(i)[0] - runs.get(i - 1)[0])
				.min()
				.orElse(-1))
			.append(" ms");
		System.out.println(summary);
		// Every tick that did not run the job was skipped: ticks every 200 ms, runs every
		// 1.2 s
		assertThat(skipped).isGreaterThan(runs.size());
	}

}
