package dev.zklock.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.autoconfigure.embedded.EmbeddedZooKeeper;
import dev.zklock.core.ChildJvm;
import dev.zklock.counterapp.CounterApplication;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several JVMs, each a Spring Boot application on the starter with one
 * {@code @DistributedLock(key = "'counter'")} method, increment one unsynchronized counter: the
 * final count is exact.
 */
@Timeout(240)
class StarterCrossProcessTests {

	@TempDir
	Path dir;

	@Test
	void annotatedMethodIsMutuallyExclusiveAcrossJvms() throws Exception {
		int jvms = 3;
		int threads = 4;
		int iterations = 20;
		Path counter = this.dir.resolve("counter");
		Files.writeString(counter, "0");
		try (EmbeddedZooKeeper zooKeeper = new EmbeddedZooKeeper(0, this.dir.resolve("zk"))) {
			List<Process> processes = new ArrayList<>();
			for (int i = 0; i < jvms; i++) {
				processes.add(ChildJvm.start(CounterApplication.class, this.dir.resolve("jvm-" + i + ".log"),
						"--zklock.connect-string=" + zooKeeper.getConnectString(), "--zklock.embedded.enabled=false",
						"--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
						"--counter.file=" + counter, "--counter.threads=" + threads,
						"--counter.iterations=" + iterations));
			}
			List<Path> logs = new ArrayList<>();
			for (int i = 0; i < jvms; i++) {
				logs.add(this.dir.resolve("jvm-" + i + ".log"));
			}
			ChildJvm.awaitSuccess(processes, logs, java.time.Duration.ofSeconds(200));
		}
		assertThat(Integer.parseInt(Files.readString(counter).trim())).isEqualTo(jvms * threads * iterations);
	}

}
