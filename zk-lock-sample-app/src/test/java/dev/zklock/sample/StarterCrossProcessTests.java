package dev.zklock.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.ChildJvm;
import dev.zklock.counterapp.CounterApplication;
import dev.zklock.embedded.EmbeddedZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several JVMs, each a Spring Boot application on the starter, increment unsynchronized
 * counters through {@code @DistributedLock} methods, all kinds at once: synchronous,
 * returning a {@code CompletableFuture} whose work runs on another thread, and returning
 * a {@code Mono}, on one key (a counter each), and locking two keys named in either
 * order. The final counts are exact. One set of JVMs runs every kind, so that the kinds
 * contend for the key with each other too, and the JVMs start once.
 */
@Timeout(240)
class StarterCrossProcessTests {

	private static final List<String> MODES = List.of("sync", "future", "mono", "pairs");

	@TempDir
	Path dir;

	@Test
	void annotatedMethodsAreMutuallyExclusiveAcrossJvms() throws Exception {
		int jvms = 3;
		int threads = 4;
		int iterations = 20;
		Path counter = this.dir.resolve("counter");
		for (String file : List.of("sync", "future", "mono", "pairs-a", "pairs-b")) {
			Files.writeString(CounterApplication.file(counter, file), "0");
		}
		try (EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(0, this.dir.resolve("zk"))) {
			List<Process> processes = new ArrayList<>();
			for (int i = 0; i < jvms; i++) {
				processes.add(ChildJvm.start(CounterApplication.class, this.dir.resolve("jvm-" + i + ".log"),
						"--zklock.connect-string=" + zooKeeper.getConnectString(), "--zklock.embedded.enabled=false",
						"--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
						"--counter.file=" + counter, "--counter.threads=" + threads,
						"--counter.iterations=" + iterations, "--counter.modes=" + String.join(",", MODES)));
			}
			List<Path> logs = new ArrayList<>();
			for (int i = 0; i < jvms; i++) {
				logs.add(this.dir.resolve("jvm-" + i + ".log"));
			}
			ChildJvm.awaitSuccess(processes, logs, java.time.Duration.ofSeconds(200));
		}
		int expected = jvms * threads * iterations;
		// The pairs take both keys for every call, in either order: exact counts, and no
		// deadlock
		for (String file : List.of("sync", "future", "mono", "pairs-a", "pairs-b")) {
			assertThat(Integer.parseInt(Files.readString(CounterApplication.file(counter, file)).trim())).as(file)
				.isEqualTo(expected);
		}
	}

}
