package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A semaphore with 3 permits across real JVMs, two on the engine and one on plain Curator
 * {@code InterProcessSemaphoreV2}: never more than 3 holders at once, and every lease
 * gone at the end.
 */
@Timeout(180)
class SemaphoreAcrossJvmsTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@TempDir
	Path dir;

	@Test
	void neverMoreHoldersThanPermitsAcrossJvmsAndCurator() throws Exception {
		List<String> modes = List.of("engine", "curator", "engine");
		int permits = 3;
		int threads = 3;
		int iterations = 8;
		Path log = this.dir.resolve("intervals.csv");
		Files.writeString(log, "");
		List<Process> processes = new ArrayList<>();
		List<Path> outputs = new ArrayList<>();
		for (int i = 0; i < modes.size(); i++) {
			Path output = this.dir.resolve("worker-" + i + ".out");
			outputs.add(output);
			processes.add(ChildJvm.start(SemaphoreWorkerMain.class, output, modes.get(i), this.zk.connectString(),
					"sem", Integer.toString(permits), Integer.toString(threads), Integer.toString(iterations),
					log.toString()));
		}
		ChildJvm.awaitSuccess(processes, outputs, Duration.ofSeconds(150));
		// +1 at each start, -1 at each end, in time order: the running sum is the holders
		// then
		List<long[]> events = new ArrayList<>();
		for (String line : Files.readAllLines(log)) {
			String[] parts = line.split(",");
			events.add(new long[] { Long.parseLong(parts[0]), 1 });
			events.add(new long[] { Long.parseLong(parts[1]), -1 });
		}
		assertThat(events).hasSize(2 * modes.size() * threads * iterations);
		events.sort((a, b) -> (a[0] != b[0]) ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
		int holders = 0;
		int most = 0;
		for (long[] event : events) {
			holders += (int) event[1];
			most = Math.max(most, holders);
		}
		assertThat(most).as("holders at once").isLessThanOrEqualTo(permits).isGreaterThan(1);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/sem/leases")).isEmpty());
	}

}
