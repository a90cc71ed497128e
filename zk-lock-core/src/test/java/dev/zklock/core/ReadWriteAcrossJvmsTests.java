package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * The read/write lock across real JVMs, two on the engine and one on plain Curator
 * {@code InterProcessReadWriteLock}: writers never overlap anyone, readers do overlap,
 * and no write is lost.
 */
@Timeout(180)
class ReadWriteAcrossJvmsTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@TempDir
	Path dir;

	@Test
	void writersExcludeEveryoneAndReadersShareAcrossJvmsAndCurator() throws Exception {
		List<String> modes = List.of("engine", "curator", "engine");
		int threads = 4;
		int iterations = 24;
		Path counter = this.dir.resolve("counter");
		Path log = this.dir.resolve("intervals.csv");
		Files.writeString(counter, "0");
		Files.writeString(log, "");
		List<Process> processes = new ArrayList<>();
		List<Path> outputs = new ArrayList<>();
		for (int i = 0; i < modes.size(); i++) {
			Path output = this.dir.resolve("worker-" + i + ".out");
			outputs.add(output);
			processes.add(ChildJvm.start(ReadWriteWorkerMain.class, output, modes.get(i), this.zk.connectString(), "rw",
					Integer.toString(threads), Integer.toString(iterations), counter.toString(), log.toString()));
		}
		ChildJvm.awaitSuccess(processes, outputs, Duration.ofSeconds(150));
		List<String[]> holds = new ArrayList<>();
		for (String line : Files.readAllLines(log)) {
			holds.add(line.split(","));
		}
		int total = modes.size() * threads * iterations;
		long writes = holds.stream().filter((hold) -> hold[0].equals("W")).count();
		assertThat(holds).hasSize(total);
		assertThat(writes).isEqualTo(total / 4);
		assertThat(Integer.parseInt(Files.readString(counter).trim())).as("no write lost").isEqualTo((int) writes);
		holds.sort(Comparator.comparingLong((String[] hold) -> Long.parseLong(hold[1])));
		int maxReaders = 0;
		for (int i = 0; i < holds.size(); i++) {
			String[] hold = holds.get(i);
			long end = Long.parseLong(hold[2]);
			int overlapping = 1;
			for (int j = i + 1; j < holds.size() && Long.parseLong(holds.get(j)[1]) < end; j++) {
				String[] later = holds.get(j);
				assertThat(hold[0].equals("W") || later[0].equals("W"))
					.as("%s overlaps %s", String.join(",", hold), String.join(",", later))
					.isFalse();
				overlapping++;
			}
			maxReaders = Math.max(maxReaders, overlapping);
		}
		assertThat(maxReaders).as("readers held at the same time").isGreaterThan(1);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/rw")).isEmpty());
	}

}
