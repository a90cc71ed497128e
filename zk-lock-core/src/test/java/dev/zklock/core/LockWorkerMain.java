package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A lock client in its own JVM, started by the cross-process tests. Each of its threads takes
 * the lock {@code iterations} times and, under it, increments a number kept in a file without
 * any other synchronization, and appends its interval to a log: lost updates or overlapping
 * intervals mean two holders at once.
 *
 * <p>Arguments: {@code engine|curator connectString key threads iterations counterFile logFile}.
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
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000,
				new ExponentialBackoffRetry(100, 3))) {
			client.start();
			client.blockUntilConnected(20, TimeUnit.SECONDS);
			ZkLockRegistry registry = new ZkLockRegistry(client);
			List<Thread> workers = new ArrayList<>();
			List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					try {
						run(mode, client, registry, key, iterations, counter, log, jvm);
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
				}, "worker-" + t);
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join(120_000);
			}
			if (!failures.isEmpty()) {
				failures.get(0).printStackTrace();
				System.exit(2);
			}
		}
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
				Files.writeString(log, key + "," + enter + "," + exit + "," + token + "," + jvm + ","
						+ Thread.currentThread().getName() + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
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
