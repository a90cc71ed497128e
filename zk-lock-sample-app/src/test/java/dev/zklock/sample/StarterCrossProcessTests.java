package dev.zklock.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.ChildJvm;
import dev.zklock.counterapp.CounterApplication;
import dev.zklock.embedded.EmbeddedZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several JVMs, each a Spring Boot application on the starter, increment unsynchronized
 * counters through {@code @DistributedLock} methods: synchronous, returning a
 * {@code CompletableFuture} whose work runs on another thread, returning a {@code Mono},
 * and locking two keys named in either order. The final counts are exact.
 */
@Timeout(240)
class StarterCrossProcessTests {

	@TempDir
	Path dir;

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "sync", "future", "mono", "pairs" })
	void annotatedMethodIsMutuallyExclusiveAcrossJvms(String mode) throws Exception {
		int jvms = 3;
		int threads = 4;
		int iterations = 20;
		Path counter = this.dir.resolve("counter");
		Files.writeString(counter, "0");
		Files.writeString(this.dir.resolve("counter-a"), "0");
		Files.writeString(this.dir.resolve("counter-b"), "0");
		try (EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(0, this.dir.resolve("zk"))) {
			List<Process> processes = new ArrayList<>();
			for (int i = 0; i < jvms; i++) {
				processes.add(ChildJvm.start(CounterApplication.class, this.dir.resolve("jvm-" + i + ".log"),
						"--zklock.connect-string=" + zooKeeper.getConnectString(), "--zklock.embedded.enabled=false",
						"--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
						"--counter.file=" + counter, "--counter.threads=" + threads,
						"--counter.iterations=" + iterations, "--counter.mode=" + mode));
			}
			List<Path> logs = new ArrayList<>();
			for (int i = 0; i < jvms; i++) {
				logs.add(this.dir.resolve("jvm-" + i + ".log"));
			}
			ChildJvm.awaitSuccess(processes, logs, java.time.Duration.ofSeconds(200));
		}
		int expected = jvms * threads * iterations;
		if (mode.equals("pairs")) {
			// Both keys taken for every call, in either order: exact counts, and no
			// deadlock
			assertThat(Integer.parseInt(Files.readString(this.dir.resolve("counter-a")).trim())).isEqualTo(expected);
			assertThat(Integer.parseInt(Files.readString(this.dir.resolve("counter-b")).trim())).isEqualTo(expected);
		}
		else {
			assertThat(Integer.parseInt(Files.readString(counter).trim())).isEqualTo(expected);
		}
	}

}
