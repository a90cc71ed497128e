package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A lock client in its own JVM, started by the cross-process tests. Each of its threads
 * takes the lock {@code iterations} times and, under it, increments a number kept in a
 * file without any other synchronization, and appends its interval to a log: lost updates
 * or overlapping intervals mean two holders at once.
 *
 * <p>
 * Arguments:
 * {@code engine|curator connectString key threads iterations counterFile logFile}.
 */
public final class LockWorkerMain {

	private LockWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String connectString = args[1];
		String key = args[2];
		int threads = Integer.parseInt(args[3]);
		int iterations = Integer.parseInt(args[4]);
		Path counter = Path.of(args[5]);
		Path log = Path.of(args[6]);
		String jvm = mode + "-" + ProcessHandle.current().pid();
		WorkerJvm.run(connectString, threads, (client) -> {
			ZkLockRegistry registry = new ZkLockRegistry(client);
			return (thread) -> run(mode, client, registry, key, iterations, counter, log, jvm);
		});
	}

	private static void run(String mode, CuratorFramework client, ZkLockRegistry registry, String key, int iterations,
			Path counter, Path log, String jvm) throws Exception {
		// Curator's mutex is per thread, so each thread has its own, as Curator documents
		InterProcessMutex mutex = new InterProcessMutex(client, "/locks/" + key);
		Lock lock = registry.obtain(key);
		for (int i = 0; i < iterations; i++) {
			long token;
			if (mode.equals("curator")) {
				mutex.acquire();
				token = -1;
			}
			else {
				lock.lock();
				token = ((ZkLock) lock).fencingToken();
			}
			try {
				long enter = System.nanoTime();
				int value = Integer.parseInt(Files.readString(counter).trim());
				Thread.sleep(0, 200_000);
				Files.writeString(counter, Integer.toString(value + 1));
				long exit = System.nanoTime();
				Files.writeString(log,
						key + "," + enter + "," + exit + "," + token + "," + jvm + ","
								+ Thread.currentThread().getName() + "\n",
						StandardCharsets.UTF_8, StandardOpenOption.APPEND);
			}
			finally {
				if (mode.equals("curator")) {
					mutex.release();
				}
				else {
					lock.unlock();
				}
			}
		}
	}

}
