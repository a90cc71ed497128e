package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A semaphore client in its own JVM, for the cross-process tests: each thread takes a
 * permit {@code iterations} times and appends its interval to a log, so that more holders
 * at once than permits shows.
 *
 * <p>
 * Arguments: {@code engine|curator connectString key permits threads iterations logFile}.
 */
public final class SemaphoreWorkerMain {

	private SemaphoreWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String key = args[2];
		int permits = Integer.parseInt(args[3]);
		int threads = Integer.parseInt(args[4]);
		int iterations = Integer.parseInt(args[5]);
		Path log = Path.of(args[6]);
		String jvm = mode + "-" + ProcessHandle.current().pid();
		WorkerJvm.run(args[1], threads, (client) -> {
			ZkSemaphore ours = new ZkLockRegistry(client).obtainSemaphore(key, permits);
			InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(client, "/locks/" + key, permits);
			return (thread) -> {
				for (int i = 0; i < iterations; i++) {
					if (mode.equals("curator")) {
						Lease lease = curator.acquire();
						try {
							work(log, jvm);
						}
						finally {
							curator.returnLease(lease);
						}
					}
					else {
						try (ZkLease lease = ours.acquire(Duration.ofSeconds(60))) {
							work(log, jvm);
						}
					}
				}
			};
		});
	}

	private static void work(Path log, String jvm) throws Exception {
		long enter = System.nanoTime();
		Thread.sleep(30);
		long exit = System.nanoTime();
		Files.writeString(log, enter + "," + exit + "," + jvm + "," + Thread.currentThread().getName() + "\n",
				StandardCharsets.UTF_8, StandardOpenOption.APPEND);
	}

}
