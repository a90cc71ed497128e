package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Virtual threads as users will have them on Java 21+: 10 000 in each of two JVMs contend
 * for one key through {@link ZkLockRegistry}'s reentrant {@code Lock}, and increment a
 * number in a file that only the lock protects. The count is exact, and no virtual thread
 * parks while pinned to its carrier: JFR records every {@code jdk.VirtualThreadPinned}
 * event in each JVM, none expected. Skipped below Java 21; {@code .ci/run} runs it on
 * Java 25.
 */
// Bounds for a hang: on a loaded 2-core machine the two JVMs take minutes
@JdkSensitive
@Timeout(600)
class VirtualThreadContentionTests {

	private static final int JVMS = 2;

	private static final int THREADS = 10_000;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@TempDir
	Path dir;

	@Test
	void virtualThreadsInTwoJvmsCountExactlyAndPinNoCarrier() throws Exception {
		assumeTrue(Runtime.version().feature() >= 21,
				"virtual threads need Java 21; this JVM is " + System.getProperty("java.version"));
		Path counter = Files.writeString(this.dir.resolve("counter"), "0");
		Path go = this.dir.resolve("go");
		List<Process> processes = new ArrayList<>();
		List<Path> outputs = new ArrayList<>();
		List<Path> recordings = new ArrayList<>();
		List<Path> readies = new ArrayList<>();
		for (int i = 0; i < JVMS; i++) {
			Path output = this.dir.resolve("worker-" + i + ".out");
			Path recording = this.dir.resolve("worker-" + i + ".jfr");
			Path ready = this.dir.resolve("worker-" + i + ".ready");
			processes.add(ChildJvm.start(VirtualThreadLockWorkerMain.class, output, this.zk.connectString(), "shared",
					Integer.toString(THREADS), counter.toString(), recording.toString(), ready.toString(),
					go.toString()));
			outputs.add(output);
			recordings.add(recording);
			readies.add(ready);
		}
		eventually().atMost(Duration.ofSeconds(180))
			.until(() -> readies.stream().allMatch(Files::exists) || processes.stream().anyMatch((p) -> !p.isAlive()));
		Files.writeString(go, "go");
		ChildJvm.awaitSuccess(processes, outputs, Duration.ofSeconds(300));

		assertThat(Integer.parseInt(Files.readString(counter).trim())).as("increments under the lock")
			.isEqualTo(JVMS * THREADS);
		for (int i = 0; i < JVMS; i++) {
			assertThat(Files.readString(outputs.get(i))).as("worker %d ran on this JVM's Java", i)
				.contains("java.version=" + System.getProperty("java.version"));
			List<RecordedEvent> pinned = RecordingFile.readAllEvents(recordings.get(i))
				.stream()
				.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
				.toList();
			List<RecordedEvent> loading = pinned.stream().filter(VirtualThreadContentionTests::loadingAClass).toList();
			List<RecordedEvent> others = pinned.stream().filter((event) -> !loadingAClass(event)).toList();
			// Printed for the report: the JDK pins a virtual thread that waits for
			// another
			// thread loading the class it needs, when the VM itself asked for the class
			// (a
			// first call through a lambda, say). Any other pin is the engine's.
			System.out.printf("Worker %d: %d jdk.VirtualThreadPinned events, %d waiting on a class load%n%s%n", i,
					pinned.size(), loading.size(), describe(loading));
			assertThat(others).as("virtual threads parked while pinned in worker %d:%n%s", i, describe(others))
				.isEmpty();
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/shared")).isEmpty());
	}

	/**
	 * Whether a pinned park was a wait for the class loader's lock, which the JDK cannot
	 * unmount when the VM itself is loading the class for the thread.
	 */
	private static boolean loadingAClass(RecordedEvent event) {
		if (event.getStackTrace() == null || event.getStackTrace().getFrames().isEmpty()) {
			return false;
		}
		RecordedMethod top = event.getStackTrace().getFrames().get(0).getMethod();
		String type = top.getType().getName();
		return top.getName().startsWith("loadClass")
				&& (type.equals("java.lang.ClassLoader") || type.startsWith("jdk.internal.loader."));
	}

	private static String describe(List<RecordedEvent> events) {
		return events.stream().limit(5).map((event) -> {
			String frames = (event.getStackTrace() != null) ? event.getStackTrace()
				.getFrames()
				.stream()
				.map((RecordedFrame frame) -> "\tat " + frame.getMethod().getType().getName() + "."
						+ frame.getMethod().getName() + ":" + frame.getLineNumber())
				.collect(Collectors.joining("\n")) : "\t(no stack trace)";
			return event.getDuration().toMillis() + " ms pinned on " + event.getThread().getJavaName() + "\n" + frames;
		}).collect(Collectors.joining("\n\n")) + ((events.size() > 5) ? "\n(" + (events.size() - 5) + " more)" : "");
	}

}
