package dev.zklock.core.faults;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A lock client in its own JVM for the fault tests. Mode {@code contend}: threads take
 * random keys for a while and log every critical section as
 * {@code key,enter,exit,token,jvm,thread,leaseState} (one file per JVM;
 * {@code System.nanoTime} is one clock for all processes of a machine). Mode
 * {@code hold}: take one key, write "held" to the log, and hold it until killed.
 *
 * <p>
 * Arguments:
 * {@code mode connectString sessionTimeoutMs keys threads durationMs waitMs logFile}.
 */
public final class FaultWorkerMain {

	private FaultWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String connectString = args[1];
		int sessionTimeoutMs = Integer.parseInt(args[2]);
		int keys = Integer.parseInt(args[3]);
		int threads = Integer.parseInt(args[4]);
		long durationMs = Long.parseLong(args[5]);
		long waitMs = Long.parseLong(args[6]);
		Path log = Path.of(args[7]);
		String jvm = "jvm-" + ProcessHandle.current().pid();
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, sessionTimeoutMs, 5_000,
				new ExponentialBackoffRetry(100, 3))) {
			client.start();
			client.blockUntilConnected(30, TimeUnit.SECONDS);
			ZkLockRegistry registry = new ZkLockRegistry(client);
			if (mode.equals("hold")) {
				registry.obtain("k0").lock();
				Files.writeString(log, "held\n");
				Thread.sleep(Long.MAX_VALUE);
			}
			contend(registry, jvm, keys, threads, durationMs, waitMs, log);
		}
	}

	private static void contend(ZkLockRegistry registry, String jvm, int keys, int threads, long durationMs,
			long waitMs, Path log) throws Exception {
		long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMs);
		AtomicLong grants = new AtomicLong();
		AtomicLong timeouts = new AtomicLong();
		AtomicLong notConnected = new AtomicLong();
		AtomicLong lost = new AtomicLong();
		AtomicLong maxOverrunMs = new AtomicLong();
		List<Throwable> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
		try (BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					while (System.nanoTime() < end) {
						String key = "k" + random.nextInt(keys);
						ZkLock lock = registry.obtain(key);
						long start = System.nanoTime();
						try {
							lock.acquire(Duration.ofMillis(waitMs));
						}
						catch (LockAcquisitionException ex) {
							long overrun = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - waitMs;
							maxOverrunMs.accumulateAndGet(overrun, Math::max);
							if (ex.getReason() == LockAcquisitionException.Reason.NOT_CONNECTED) {
								notConnected.incrementAndGet();
							}
							else {
								timeouts.incrementAndGet();
							}
							sleep(20);
							continue;
						}
						catch (Throwable ex) {
							unexpected.add(ex);
							return;
						}
						long enter = System.nanoTime();
						long token = lock.fencingToken();
						sleep(random.nextInt(1, 4));
						LeaseState state = lock.leaseState();
						long exit = System.nanoTime();
						long grant = grants.incrementAndGet();
						try {
							lock.unlock();
						}
						catch (LockLostException ex) {
							lost.incrementAndGet();
							state = LeaseState.LOST;
						}
						catch (Throwable ex) {
							unexpected.add(ex);
							return;
						}
						write(out, key + "," + enter + "," + exit + "," + token + "," + jvm + ","
								+ Thread.currentThread().getName() + "," + state + "\n", grant == 1);
					}
				}, "w" + t);
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join(durationMs + 120_000);
				if (worker.isAlive()) {
					unexpected.add(new IllegalStateException("worker " + worker.getName() + " hung"));
				}
			}
		}
		System.out.println("SUMMARY grants=" + grants + " timeouts=" + timeouts + " notConnected=" + notConnected
				+ " lost=" + lost + " maxOverrunMs=" + maxOverrunMs + " unexpected=" + unexpected.size());
		if (!unexpected.isEmpty()) {
			unexpected.get(0).printStackTrace(System.out);
			System.exit(3);
		}
	}

	private static void write(BufferedWriter out, String line, boolean flush) {
		synchronized (out) {
			try {
				out.write(line);
				if (flush) {
					// The first grant reaches the file at once: the test waits for it
					// to strike
					out.flush();
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
