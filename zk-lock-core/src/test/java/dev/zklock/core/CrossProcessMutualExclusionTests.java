package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion across real JVMs: child processes on the test classpath contend for
 * one key and increment an unsynchronized counter in a file under the lock.
 */
@Timeout(180)
class CrossProcessMutualExclusionTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@TempDir
	Path dir;

	@Test
	void threadsInSeveralJvmsNeverOverlap() throws Exception {
		int threads = 4;
		int iterations = 25;
		List<String> modes = List.of("engine", "engine", "engine");
		assertExclusive(modes, threads, iterations);
	}

	@Test
	void engineAndPlainCuratorMutexExcludeEachOther() throws Exception {
		int threads = 3;
		int iterations = 20;
		List<String> modes = List.of("engine", "curator", "engine");
		assertExclusive(modes, threads, iterations);
	}

	private void assertExclusive(List<String> modes, int threads, int iterations) throws Exception {
		Path counter = this.dir.resolve("counter");
		Path log = this.dir.resolve("intervals.csv");
		Files.writeString(counter, "0");
		Files.writeString(log, "");
		List<Process> processes = new ArrayList<>();
		for (int i = 0; i < modes.size(); i++) {
			processes.add(startWorker(modes.get(i), "counter", threads, iterations, counter, log, i));
		}
		List<Path> outputs = new ArrayList<>();
		for (int i = 0; i < modes.size(); i++) {
			outputs.add(this.dir.resolve("worker-" + i + ".out"));
		}
		ChildJvm.awaitSuccess(processes, outputs, java.time.Duration.ofSeconds(150));
		int expected = modes.size() * threads * iterations;
		assertThat(Integer.parseInt(Files.readString(counter).trim())).isEqualTo(expected);
		List<long[]> intervals = new ArrayList<>();
		for (String line : Files.readAllLines(log)) {
			String[] parts = line.split(",");
			intervals.add(new long[] { Long.parseLong(parts[1]), Long.parseLong(parts[2]) });
		}
		assertThat(intervals).hasSize(expected);
		intervals.sort(Comparator.comparingLong((long[] interval) -> interval[0]));
		for (int i = 1; i < intervals.size(); i++) {
			assertThat(intervals.get(i)[0]).as("interval %d starts after the previous one ends", i)
				.isGreaterThan(intervals.get(i - 1)[1]);
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/counter")).isEmpty());
	}

	private Process startWorker(String mode, String key, int threads, int iterations, Path counter, Path log, int index)
			throws Exception {
		return ChildJvm.start(LockWorkerMain.class, this.dir.resolve("worker-" + index + ".out"), mode,
				this.zk.connectString(), key, Integer.toString(threads), Integer.toString(iterations),
				counter.toString(), log.toString());
	}

}
