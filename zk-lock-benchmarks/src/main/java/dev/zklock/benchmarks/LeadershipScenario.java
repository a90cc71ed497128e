package dev.zklock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.TermEnd;
import dev.zklock.core.registry.ZkLockRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 7: the leader of a group of two candidates, each on its own client and
 * session, steps down, and the other leads; the gap is the time from the step-down to the
 * moment the next leader is told (both {@code System.nanoTime()} in this JVM). Three
 * ways, interleaved round by round so that a slow spell of the machine hits them all
 * alike: zk-lock's {@code yieldLeadership()} (the leader queues again), zk-lock's
 * {@code close()} followed by a new {@code joinLeadership} on the same registry, and, as
 * the control, Curator's {@code LeaderSelector} (auto-requeue) whose leader returns from
 * {@code takeLeadership}.
 *
 * <p>
 * Before each hand-off the harness waits until both candidates have their node in the
 * group's queue, then a short settle, so that the gap is one hand-off: the leader's
 * delete and the waiter's watch, never a candidate still queueing. Two terms active at
 * once, as the listeners see them, or an epoch not above the one before, are correctness
 * failures.
 */
final class LeadershipScenario {

	static final String TITLE = "Scenario 7: leadership hand-off, two candidates on their own sessions";

	static final String YIELD = "zk-lock: yieldLeadership()";

	static final String CLOSE = "zk-lock: close(), then join again";

	static final String SELECTOR = "Curator LeaderSelector: return from takeLeadership (control)";

	static final LeaderGroup GROUP = LeaderGroup.named("bench-hand-off");

	static final String SELECTOR_PATH = "/bench/leader-selector";

	/** Blocks of rounds whose medians give the ratio's spread. */
	static final int BLOCKS = 5;

	private static final Duration GRANT_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * After both candidates are queued: the waiter's predecessor watch is set a round
	 * trip after its node shows in the queue.
	 */
	private static final long SETTLE_MS = 20;

	private LeadershipScenario() {
	}

	/**
	 * The sizes of the mode.
	 *
	 * @param rounds hand-offs measured per way
	 * @param warmUp hand-offs per way before them, not kept
	 */
	record Sizes(int rounds, int warmUp) {

		static Sizes of(boolean smoke) {
			return smoke ? new Sizes(10, 3) : new Sizes(200, 20);
		}

	}

	/**
	 * One way's hand-offs.
	 *
	 * @param gaps nanoseconds from each step-down to the next leader's grant, in round
	 * order
	 * @param calls nanoseconds each step-down call took to return (empty for the control,
	 * whose step-down is a return)
	 * @param reLed hand-offs after which the candidate that stepped down led again
	 */
	record Way(List<Long> gaps, List<Long> calls, int reLed) {

		List<Long> sorted() {
			return this.gaps.stream().sorted().toList();
		}

		long p50() {
			return CellResult.percentile(sorted(), 0.50);
		}

		long p95() {
			return CellResult.percentile(sorted(), 0.95);
		}

		long max() {
			return CellResult.percentile(sorted(), 1.0);
		}

		/**
		 * The median of each of {@link #BLOCKS} consecutive blocks of rounds.
		 */
		List<Long> blockMedians() {
			List<Long> medians = new ArrayList<>();
			int size = this.gaps.size();
			for (int b = 0; b < BLOCKS; b++) {
				List<Long> block = this.gaps.subList(b * size / BLOCKS, (b + 1) * size / BLOCKS)
					.stream()
					.sorted()
					.toList();
				if (!block.isEmpty()) {
					medians.add(CellResult.percentile(block, 0.50));
				}
			}
			return medians;
		}

	}

	/**
	 * What the scenario measured, for its goals: the ways that finished, by name.
	 *
	 * @param ways {@link #YIELD}, {@link #CLOSE} and {@link #SELECTOR}
	 */
	record Result(Map<String, Way> ways) {
	}

	/**
	 * A grant as a listener saw it.
	 */
	private record Grant(int candidate, long nanos, long epoch) {
	}

	static @Nullable Result run(ExternalZooKeeper zk, Sizes sizes, Report report) throws Exception {
		report.table(TITLE, "how the leader steps down", "rounds", "gap p50 (ms)", "gap p95 (ms)", "gap max (ms)",
				"the step-down call returned after, p50 (ms)", "rounds the same candidate led again", "violations");
		List<String> names = List.of(YIELD, CLOSE, SELECTOR);
		List<List<Long>> gaps = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
		List<List<Long>> calls = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
		int[] reLed = new int[names.size()];
		long began = System.nanoTime();
		try (Candidates candidates = new Candidates(zk); Selectors selectors = new Selectors(zk)) {
			try {
				for (int round = 0; round < sizes.warmUp() + sizes.rounds(); round++) {
					boolean kept = round >= sizes.warmUp();
					for (int w = 0; w < names.size(); w++) {
						String way = names.get(w);
						long[] handOff = way.equals(SELECTOR) ? selectors.handOff()
								: candidates.handOff(way.equals(CLOSE));
						if (handOff[2] != 0) {
							reLed[w]++;
						}
						else if (kept) {
							gaps.get(w).add(handOff[0]);
							if (handOff[1] >= 0) {
								calls.get(w).add(handOff[1]);
							}
						}
					}
				}
			}
			catch (IllegalStateException ex) {
				report.failure(TITLE + ": " + ex.getMessage());
				return null;
			}
			Map<String, Way> ways = new LinkedHashMap<>();
			for (int w = 0; w < names.size(); w++) {
				ways.put(names.get(w), new Way(gaps.get(w), calls.get(w), reLed[w]));
			}
			report(ways, candidates.violations(), selectors.violations(), report);
			System.out.println("  " + TITLE + ": " + (sizes.warmUp() + sizes.rounds()) * names.size() + " hand-offs in "
					+ TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began) + " s");
			return new Result(ways);
		}
	}

	private static void report(Map<String, Way> ways, List<String> zkLockViolations, List<String> selectorViolations,
			Report report) {
		ways.forEach((name, way) -> {
			// zk-lock's two ways take turns in one group, so their rows show one count
			List<String> violations = name.equals(SELECTOR) ? selectorViolations : zkLockViolations;
			List<Long> calls = way.calls().stream().sorted().toList();
			report.row(TITLE, name, Integer.toString(way.gaps().size()), CellResult.ms(way.p50()),
					CellResult.ms(way.p95()), CellResult.ms(way.max()),
					CellResult.ms(CellResult.percentile(calls, 0.5)), Integer.toString(way.reLed()),
					Integer.toString(violations.size()));
		});
		zkLockViolations.forEach((violation) -> report.failure(TITLE + ", zk-lock: " + violation));
		selectorViolations.forEach((violation) -> report.failure(TITLE + ", Curator LeaderSelector: " + violation));
	}

	static void goals(@Nullable Result result, Report report) {
		if (result == null) {
			return;
		}
		Way yield = result.ways().get(YIELD);
		Way close = result.ways().get(CLOSE);
		Way selector = result.ways().get(SELECTOR);
		if (yield == null || close == null || selector == null || yield.gaps().isEmpty() || selector.gaps().isEmpty()
				|| close.gaps().isEmpty()) {
			report.goal("S7: zk-lock's p50 hand-off gap ≤ 1.2 × Curator LeaderSelector's", false,
					"not measured (no hand-off kept)");
			return;
		}
		double ratio = yield.p50() / (double) selector.p50();
		List<Long> ours = yield.blockMedians();
		List<Long> theirs = selector.blockMedians();
		List<Double> blocks = new ArrayList<>();
		for (int b = 0; b < Math.min(ours.size(), theirs.size()); b++) {
			blocks.add(ours.get(b) / (double) theirs.get(b));
		}
		double low = blocks.stream().mapToDouble(Double::doubleValue).min().orElse(ratio);
		double high = blocks.stream().mapToDouble(Double::doubleValue).max().orElse(ratio);
		report.goal("S7: zk-lock's p50 hand-off gap (yieldLeadership) ≤ 1.2 × Curator LeaderSelector's", ratio <= 1.2,
				CellResult.ms(yield.p50()) + " ms vs " + CellResult.ms(selector.p50()) + " ms (ratio "
						+ Report.fixed(ratio, 2) + "; the medians of " + blocks.size() + " blocks of rounds "
						+ Report.fixed(low, 2) + "–" + Report.fixed(high, 2) + "); close() then join: "
						+ CellResult.ms(close.p50()) + " ms (ratio "
						+ Report.fixed(close.p50() / (double) selector.p50(), 2) + ", not judged)");
		long worst = Math.max(yield.p95(), close.p95());
		report.goal("S7: zk-lock's p95 graceful hand-off gap ≤ 1 s (yieldLeadership and close)",
				worst <= 1_000_000_000L,
				"p95 " + CellResult.ms(yield.p95()) + " ms (yield), " + CellResult.ms(close.p95()) + " ms (close); max "
						+ CellResult.ms(Math.max(yield.max(), close.max())) + " ms; Curator LeaderSelector p95 "
						+ CellResult.ms(selector.p95()) + " ms");
	}

	/**
	 * Poll until the group's queue has both candidates, then settle.
	 */
	private static void awaitQueued(Members members, String what) throws Exception {
		long deadline = System.nanoTime() + GRANT_TIMEOUT.toNanos();
		while (members.count() < 2) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(what + ": the two candidates not queued within " + GRANT_TIMEOUT);
			}
			Thread.sleep(2);
		}
		Thread.sleep(SETTLE_MS);
	}

	private static Grant next(BlockingQueue<Grant> grants, String what) throws InterruptedException {
		Grant grant = grants.poll(GRANT_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		if (grant == null) {
			throw new IllegalStateException(what + ": nobody led within " + GRANT_TIMEOUT + " of the step-down");
		}
		return grant;
	}

	/**
	 * Counts the group's queued candidates (a read of ZooKeeper).
	 */
	@FunctionalInterface
	private interface Members {

		int count() throws Exception;

	}

	/**
	 * Two zk-lock candidates, each on a registry of its own client.
	 */
	private static final class Candidates implements AutoCloseable {

		private final List<AutoCloseable> resources = new ArrayList<>();

		private final ZkLockRegistry[] registries = new ZkLockRegistry[2];

		private final LeaderCandidate[] candidates = new LeaderCandidate[2];

		private final BlockingQueue<Grant> grants = new LinkedBlockingQueue<>();

		/** Terms granted and not yet revoked, as the listeners see them. */
		private final AtomicInteger active = new AtomicInteger();

		private final AtomicLong lastEpoch = new AtomicLong(Long.MIN_VALUE);

		private final List<String> violations = new ArrayList<>();

		private int leader;

		Candidates(ExternalZooKeeper zk) throws Exception {
			try {
				for (int i = 0; i < 2; i++) {
					CuratorFramework client = zk.newClient();
					this.resources.add(0, client);
					this.registries[i] = new ZkLockRegistry(client);
					this.resources.add(0, this.registries[i]);
				}
				// One after the other, so that the first leads
				this.candidates[0] = this.registries[0].joinLeadership(GROUP, listener(0));
				this.leader = next(this.grants, YIELD).candidate();
				this.candidates[1] = this.registries[1].joinLeadership(GROUP, listener(1));
			}
			catch (Exception ex) {
				close();
				throw ex;
			}
		}

		/**
		 * One hand-off: {gap, the step-down call's time, 1 if the same candidate led
		 * again}.
		 */
		long[] handOff(boolean close) throws Exception {
			String what = close ? CLOSE : YIELD;
			awaitQueued(() -> this.registries[0].groupMembers(GROUP).size(), what);
			int from = this.leader;
			long start = System.nanoTime();
			if (close) {
				if (!this.candidates[from].close(GRANT_TIMEOUT)) {
					throw new IllegalStateException(what + ": close() did not return within " + GRANT_TIMEOUT);
				}
			}
			else {
				this.candidates[from].yieldLeadership();
			}
			long call = System.nanoTime() - start;
			if (close) {
				// Behind the other candidate, whose node is older
				this.candidates[from] = this.registries[from].joinLeadership(GROUP, listener(from));
			}
			Grant grant = next(this.grants, what);
			this.leader = grant.candidate();
			return new long[] { grant.nanos() - start, call, (grant.candidate() == from) ? 1 : 0 };
		}

		private LeadershipListener listener(int index) {
			return new LeadershipListener() {

				@Override
				public void leadershipGranted(LeaderTerm term) {
					long now = System.nanoTime();
					if (Candidates.this.active.incrementAndGet() > 1) {
						violation("candidate " + index + " granted epoch " + term.epoch()
								+ " while another term was active");
					}
					long previous = Candidates.this.lastEpoch.getAndSet(term.epoch());
					if (term.epoch() <= previous) {
						violation("epoch " + term.epoch() + " after epoch " + previous);
					}
					Candidates.this.grants.add(new Grant(index, now, term.epoch()));
				}

				@Override
				public void leadershipRevoked(LeaderTerm term, TermEnd why) {
					Candidates.this.active.decrementAndGet();
					if (!why.isHandOff()) {
						violation("epoch " + term.epoch() + " ended " + why + ", not by a hand-off");
					}
				}

			};
		}

		private void violation(String description) {
			synchronized (this.violations) {
				this.violations.add(description);
			}
		}

		List<String> violations() {
			synchronized (this.violations) {
				return List.copyOf(this.violations);
			}
		}

		@Override
		public void close() throws Exception {
			for (LeaderCandidate candidate : this.candidates) {
				if (candidate != null) {
					candidate.close(GRANT_TIMEOUT);
				}
			}
			for (AutoCloseable resource : this.resources) {
				resource.close();
			}
		}

	}

	/**
	 * Two Curator {@code LeaderSelector}s, each on its own client, that queue again after
	 * each term; the harness tells the leader when to return from {@code takeLeadership}.
	 */
	private static final class Selectors implements AutoCloseable {

		private final List<CuratorFramework> clients = new ArrayList<>();

		private final LeaderSelector[] selectors = new LeaderSelector[2];

		/** The selectors started, the ones to close. */
		private final List<LeaderSelector> started = new ArrayList<>();

		private final Semaphore[] stepDown = { new Semaphore(0), new Semaphore(0) };

		private final BlockingQueue<Grant> grants = new LinkedBlockingQueue<>();

		/** When each leader returned from {@code takeLeadership}. */
		private final BlockingQueue<Long> returns = new LinkedBlockingQueue<>();

		private final AtomicInteger active = new AtomicInteger();

		private final List<String> violations = new ArrayList<>();

		private int leader;

		Selectors(ExternalZooKeeper zk) throws Exception {
			try {
				for (int i = 0; i < 2; i++) {
					CuratorFramework client = zk.newClient();
					this.clients.add(client);
					this.selectors[i] = new LeaderSelector(client, SELECTOR_PATH, listener(i));
					this.selectors[i].autoRequeue();
				}
				start(0);
				this.leader = next(this.grants, SELECTOR).candidate();
				start(1);
			}
			catch (Exception ex) {
				close();
				throw ex;
			}
		}

		private void start(int index) {
			this.selectors[index].start();
			this.started.add(this.selectors[index]);
		}

		/**
		 * One hand-off: {gap, -1, 1 if the same participant led again}.
		 */
		long[] handOff() throws Exception {
			awaitQueued(() -> this.selectors[0].getParticipants().size(), SELECTOR);
			int from = this.leader;
			this.stepDown[from].release();
			Grant grant = next(this.grants, SELECTOR);
			Long returned = this.returns.poll(GRANT_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
			if (returned == null) {
				throw new IllegalStateException(SELECTOR + ": the leader did not return from takeLeadership");
			}
			this.leader = grant.candidate();
			return new long[] { grant.nanos() - returned, -1, (grant.candidate() == from) ? 1 : 0 };
		}

		private LeaderSelectorListenerAdapter listener(int index) {
			return new LeaderSelectorListenerAdapter() {

				@Override
				public void takeLeadership(CuratorFramework client) throws Exception {
					long now = System.nanoTime();
					if (Selectors.this.active.incrementAndGet() > 1) {
						violation("participant " + index + " took leadership while another held it");
					}
					Selectors.this.grants.add(new Grant(index, now, 0));
					try {
						Selectors.this.stepDown[index].acquire();
					}
					finally {
						Selectors.this.active.decrementAndGet();
						Selectors.this.returns.add(System.nanoTime());
					}
				}

			};
		}

		private void violation(String description) {
			synchronized (this.violations) {
				this.violations.add(description);
			}
		}

		List<String> violations() {
			synchronized (this.violations) {
				return List.copyOf(this.violations);
			}
		}

		/**
		 * Close the selectors, then their clients once the leader's node is gone: a
		 * selector releases its node on its own thread after {@code close()} returns, and
		 * a client closed under it logs an error.
		 */
		@Override
		public void close() throws Exception {
			for (LeaderSelector selector : this.started) {
				selector.close();
			}
			try {
				if (!this.clients.isEmpty()) {
					CuratorFramework client = this.clients.get(0);
					long deadline = System.nanoTime() + GRANT_TIMEOUT.toNanos();
					while (client.checkExists().forPath(SELECTOR_PATH) != null
							&& !client.getChildren().forPath(SELECTOR_PATH).isEmpty() && System.nanoTime() < deadline) {
						Thread.sleep(10);
					}
				}
			}
			finally {
				for (CuratorFramework client : this.clients) {
					client.close();
				}
			}
		}

	}

}
