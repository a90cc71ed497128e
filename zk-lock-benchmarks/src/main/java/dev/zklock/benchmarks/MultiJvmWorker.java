package dev.zklock.benchmarks;

import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;

/**
 * One JVM of scenario 3: threads take random keys from a set until a common end time, and
 * record each grant as {@code key,requested,entered,exited,jvm} (nanoTime is one clock
 * for all processes of a machine).
 *
 * <p>
 * Arguments:
 * {@code zklock|curator connectString keys threads startAtMillis durationMs jvm outFile}.
 */
public final class MultiJvmWorker {

	private MultiJvmWorker() {
	}

	public static void main(String[] args) throws Exception {
		String implementation = args[0];
		int keys = Integer.parseInt(args[2]);
		int threads = Integer.parseInt(args[3]);
		long startAt = Long.parseLong(args[4]);
		long durationMs = Long.parseLong(args[5]);
		String jvm = args[6];
		Path out = Path.of(args[7]);
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(args[1], 30_000, 15_000,
				new ExponentialBackoffRetry(100, 3))) {
			client.start();
			client.blockUntilConnected();
			ZkLockRegistry registry = new ZkLockRegistry(client);
			Thread.sleep(Math.max(0, startAt - System.currentTimeMillis()));
			long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMs);
			List<List<String>> lines = new ArrayList<>();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				List<String> own = new ArrayList<>();
				lines.add(own);
				Thread worker = new Thread(() -> {
					try {
						while (System.nanoTime() < end) {
							String key = "k" + ThreadLocalRandom.current().nextInt(keys);
							long requested = System.nanoTime();
							if (implementation.equals("curator")) {
								InterProcessMutex mutex = new InterProcessMutex(client, "/locks/" + key);
								mutex.acquire();
								long entered = System.nanoTime();
								long exited = System.nanoTime();
								mutex.release();
								own.add(key + "," + requested + "," + entered + "," + exited + "," + jvm);
							}
							else {
								ZkLock lock = registry.obtain(key);
								lock.lock();
								long entered = System.nanoTime();
								long exited = System.nanoTime();
								lock.unlock();
								own.add(key + "," + requested + "," + entered + "," + exited + "," + jvm);
							}
						}
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join(durationMs + 120_000);
			}
			try (BufferedWriter writer = Files.newBufferedWriter(out)) {
				for (List<String> own : lines) {
					for (String line : own) {
						writer.write(line);
						writer.newLine();
					}
				}
			}
		}
	}

}
