package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 1, the classic test of the lock articles: T threads of one JVM each take the
 * lock once, increment a plain {@code int}, and release. Wall time from the start signal
 * to the last release; the count must be exact.
 */
final class ContentionScenario {

	static final String TITLE = "Scenario 1: one key, T threads in one JVM, one lock each (wall time)";

	private ContentionScenario() {
	}

	/**
	 * Run every implementation for every thread count; return wall nanos by
	 * implementation and T.
	 */
	static Map<String, Map<Integer, Long>> run(ExternalZooKeeper zk, List<Integer> threadCounts, long timeoutSeconds,
			Report report) throws Exception {
		List<String> header = new ArrayList<>(List.of("implementation"));
		threadCounts.forEach((t) -> header.add(t + " threads (ms)"));
		header.add("count exact");
		report.table(TITLE, header.toArray(String[]::new));
		Map<String, Map<Integer, Long>> results = new HashMap<>();
		int run = 0;
		for (String name : Implementation.selected()) {
			List<String> cells = new ArrayList<>(List.of(name));
			boolean exact = true;
			for (int threads : threadCounts) {
				String path = "/bench/contention-" + (run++);
				try (Implementation implementation = Implementation.create(name, zk.connectString(), path)) {
					int[] counter = { 0 };
					long nanos = contend(implementation, threads, counter, timeoutSeconds);
					int count = implementation.count(counter);
					if (nanos < 0) {
						cells.add("> " + timeoutSeconds * 1000 + " (did not finish)");
						continue;
					}
					if (count != threads) {
						exact = false;
						report.failure(name + " with " + threads + " threads counted " + count);
					}
					results.computeIfAbsent(name, (k) -> new HashMap<>()).put(threads, nanos);
					cells.add(Report.ms(nanos));
				}
			}
			cells.add(exact ? "yes" : "NO");
			report.row(TITLE, cells.toArray(String[]::new));
		}
		return results;
	}

	private static long contend(Implementation implementation, int threads, int[] counter, long timeoutSeconds)
			throws Exception {
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch start = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(threads);
		AtomicInteger errors = new AtomicInteger();
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Contender contender = implementation.contender(i);
			Thread worker = new Thread(() -> {
				try {
					ready.countDown();
					start.await();
					contender.lock();
					try {
						counter[0]++;
					}
					finally {
						contender.unlock();
					}
				}
				catch (Exception ex) {
					errors.incrementAndGet();
				}
				finally {
					done.countDown();
				}
			});
			worker.setDaemon(true);
			workers.add(worker);
			worker.start();
		}
		ready.await();
		long begin = System.nanoTime();
		start.countDown();
		boolean finished = done.await(timeoutSeconds, TimeUnit.SECONDS);
		long elapsed = System.nanoTime() - begin;
		if (!finished) {
			workers.forEach(Thread::interrupt);
			return -1;
		}
		return elapsed;
	}

}
