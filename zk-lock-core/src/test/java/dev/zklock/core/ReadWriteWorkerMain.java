package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A read/write lock client in its own JVM, for the cross-process tests. Each thread takes
 * the lock {@code iterations} times, every fourth time to write: a writer increments a
 * number kept in a file with no other synchronization, a reader reads it and lingers;
 * each appends its interval ({@code R} or {@code W}) to a log, so that a writer
 * overlapping anyone shows.
 *
 * <p>
 * Arguments:
 * {@code engine|curator connectString key threads iterations counterFile logFile}.
 */
public final class ReadWriteWorkerMain {

	private ReadWriteWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String key = args[2];
		int threads = Integer.parseInt(args[3]);
		int iterations = Integer.parseInt(args[4]);
		Path counter = Path.of(args[5]);
		Path log = Path.of(args[6]);
		String jvm = mode + "-" + ProcessHandle.current().pid();
		WorkerJvm.run(args[1], threads, (client) -> {
			ZkReadWriteLock ours = new ZkLockRegistry(client).obtainReadWrite(key);
			return (thread) -> {
				// Curator's locks are per thread, so each thread has its own, as Curator
				// documents
				InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/" + key);
				for (int i = 0; i < iterations; i++) {
					boolean write = (i + thread) % 4 == 0;
					if (mode.equals("curator")) {
						InterProcessLock side = write ? curator.writeLock() : curator.readLock();
						side.acquire();
						try {
							work(write, counter, log, jvm);
						}
						finally {
							side.release();
						}
					}
					else {
						ZkLock side = write ? ours.writeLock() : ours.readLock();
						side.lock();
						try {
							work(write, counter, log, jvm);
						}
						finally {
							side.unlock();
						}
					}
				}
			};
		});
	}

	private static void work(boolean write, Path counter, Path log, String jvm) throws Exception {
		long enter = System.nanoTime();
		int value = Integer.parseInt(Files.readString(counter).trim());
		Thread.sleep(2);
		if (write) {
			Files.writeString(counter, Integer.toString(value + 1));
		}
		long exit = System.nanoTime();
		Files.writeString(log, (write ? "W" : "R") + "," + enter + "," + exit + "," + jvm + ","
				+ Thread.currentThread().getName() + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
	}

}
