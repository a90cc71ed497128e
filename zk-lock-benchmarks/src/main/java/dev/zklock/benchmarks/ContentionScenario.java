package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

	static final String ROUNDS_TITLE = "Scenario 1, %d threads: zk-lock and the floor in %d back-to-back pairs";

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
				Cell cell = cell(zk, name, "/bench/contention-" + (run++), threads, timeoutSeconds, report);
				if (!cell.finished()) {
					cells.add("> " + timeoutSeconds * 1000 + " (did not finish)");
					continue;
				}
				exact &= cell.exact();
				results.computeIfAbsent(name, (k) -> new HashMap<>()).put(threads, cell.nanos());
				cells.add(Report.ms(cell.nanos()));
			}
			cells.add(exact ? "yes" : "NO");
			report.row(TITLE, cells.toArray(String[]::new));
		}
		return results;
	}

	/**
	 * Time zk-lock and the fair {@code ReentrantLock} against each other at one thread
	 * count, in back-to-back pairs, alternating which goes first: the ratio of the floor
	 * goal, taken as the median of the pairs' ratios. One cell of the table above is a
	 * race between two chains of thread wake-ups (the start signal's, and the local
	 * queue's hand-offs) on two cores, and a single pair of them spanned 1.0 to 1.8 × on
	 * one commit on one day; a pair run back to back shares the machine's mood, and the
	 * median of several does not hang on one.
	 * @return the ratio of each pair, in run order; empty if either is not selected or a
	 * run did not finish
	 */
	static List<Double> floorRounds(ExternalZooKeeper zk, int threads, int rounds, long timeoutSeconds, Report report)
			throws Exception {
		List<String> names = Implementation.names();
		String ours = names.get(4);
		String floor = names.get(6);
		if (!Implementation.selected().containsAll(List.of(ours, floor))) {
			return List.of();
		}
		String title = ROUNDS_TITLE.formatted(threads, rounds);
		report.table(title, "pair", "first", ours + " (ms)", floor + " (ms)", "ratio");
		List<Double> ratios = new ArrayList<>();
		for (int round = 0; round < rounds; round++) {
			List<String> order = (round % 2 == 0) ? List.of(ours, floor) : List.of(floor, ours);
			Map<String, Long> nanos = new HashMap<>();
			for (String name : order) {
				Cell cell = cell(zk, name, "/bench/contention-pair-" + round + "-" + nanos.size(), threads,
						timeoutSeconds, report);
				if (!cell.finished()) {
					report.failure(name + " with " + threads + " threads did not finish in pair " + (round + 1));
					return List.of();
				}
				nanos.put(name, cell.nanos());
			}
			long zkLock = Objects.requireNonNull(nanos.get(ours), "every pair times zk-lock");
			long reentrant = Objects.requireNonNull(nanos.get(floor), "every pair times the floor");
			double ratio = zkLock / (double) reentrant;
			ratios.add(ratio);
			report.row(title, Integer.toString(round + 1), (round % 2 == 0) ? "zk-lock" : "ReentrantLock",
					Report.ms(zkLock), Report.ms(reentrant), Report.fixed(ratio, 2));
		}
		return ratios;
	}

	/**
	 * Time one implementation once, on a fresh lock path; a wrong count is reported as a
	 * failure.
	 */
	private static Cell cell(ExternalZooKeeper zk, String name, String path, int threads, long timeoutSeconds,
			Report report) throws Exception {
		try (Implementation implementation = Implementation.create(name, zk.connectString(), path)) {
			int[] counter = { 0 };
			long nanos = contend(implementation, threads, counter, timeoutSeconds);
			if (nanos < 0) {
				return new Cell(-1, true);
			}
			int count = implementation.count(counter);
			if (count != threads) {
				report.failure(name + " with " + threads + " threads counted " + count);
			}
			return new Cell(nanos, count == threads);
		}
	}

	/**
	 * One timed run.
	 *
	 * @param nanos wall time from the start signal to the last release; -1 if it did not
	 * finish in time
	 * @param exact whether every thread's increment was counted
	 */
	private record Cell(long nanos, boolean exact) {

		boolean finished() {
			return this.nanos >= 0;
		}

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
		// The garbage of the cell before (1000 threads' worth) must not be collected in
		// this one: a young collection here took 17 ms, a tenth of a cell, and fell on
		// whichever implementation followed the one that allocates more
		System.gc();
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
