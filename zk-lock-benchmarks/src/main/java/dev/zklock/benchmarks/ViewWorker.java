package dev.zklock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.view.ViewOptions;

/**
 * The worker role of scenario 8, run by {@link MultiJvmWorker}: one JVM of three that
 * holds its share of the keys and queues behind the others', publishing its report for
 * the cluster view.
 *
 * <p>
 * Arguments:
 * {@code view-worker connectString outFile jvm keys waitingCalls curatorPerKey}. Before
 * it reports ready it holds, by a lease each, every key {@code i} with
 * {@code i % 3 == jvm} ({@link ClusterViewScenario#holderOf}); leases need no thread per
 * hold. Once started, it queues its share of the {@code waitingCalls} zk-lock waiting
 * calls on keys the other two JVMs hold ({@link ClusterViewScenario#waitedKeys}), each a
 * lease attempt with a long wait on a platform thread of its own with a small stack (JDK
 * 17: no virtual threads), and {@code curatorPerKey} plain Curator
 * {@code InterProcessMutex} waiters on every key, one thread each, on a client and
 * session of their own, as a plain Curator process has (the recipe knows nothing of the
 * engine's local queue, so each is a node of its own, also on this JVM's keys). Nothing
 * is ever granted: the holders never release. It writes
 * {@code held,waitingCalls,curatorWaiters,failures} to {@code outFile} once every thread
 * has started, and runs until its standard input ends.
 */
final class ViewWorker {

	static final String ROLE = "view-worker";

	/**
	 * Stack of a waiting thread: it parks inside the engine or Curator, a few frames
	 * deep.
	 */
	private static final long STACK_BYTES = 256 * 1024;

	private static final Duration LONG_WAIT = Duration.ofHours(1);

	private ViewWorker() {
	}

	static MultiJvmWorker.Role role(String[] args, CuratorFramework client) throws Exception {
		Path out = Path.of(args[2]);
		int jvm = Integer.parseInt(args[3]);
		int keys = Integer.parseInt(args[4]);
		int waitingCalls = Integer.parseInt(args[5]);
		int curatorPerKey = Integer.parseInt(args[6]);
		ZkLockRegistry registry = new ZkLockRegistry(client,
				ZkLockOptions.defaults().withRootPath(ClusterViewScenario.ROOT));
		registry.publishReports(ViewOptions.defaults());
		List<ZkLease> leases = hold(registry, jvm, keys);
		return new MultiJvmWorker.Role() {
			@Override
			public Path out() {
				return out;
			}

			@Override
			public int run(long start, long end) throws Exception {
				return queue(args[1], registry, jvm, keys, waitingCalls, curatorPerKey, leases.size(), out);
			}
		};
	}

	/**
	 * Hold every key of this JVM by a lease, a few at a time.
	 */
	private static List<ZkLease> hold(ZkLockRegistry registry, int jvm, int keys) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<Future<ZkLease>> futures = new ArrayList<>();
			for (int i = 0; i < keys; i++) {
				if (ClusterViewScenario.holderOf(i) == jvm) {
					String key = ClusterViewScenario.key(i);
					futures.add(pool.submit(() -> registry.acquireLease(key, Duration.ofSeconds(30))));
				}
			}
			List<ZkLease> leases = new ArrayList<>();
			for (Future<ZkLease> future : futures) {
				leases.add(future.get(60, TimeUnit.SECONDS));
			}
			return leases;
		}
		finally {
			pool.shutdown();
		}
	}

	private static int queue(String connectString, ZkLockRegistry registry, int jvm, int keys, int waitingCalls,
			int curatorPerKey, int held, Path out) throws Exception {
		AtomicInteger failures = new AtomicInteger();
		List<Integer> waited = ClusterViewScenario.waitedKeys(jvm, keys, waitingCalls);
		int threads = 0;
		for (int i = 0; i < waited.size(); i++) {
			String key = ClusterViewScenario.key(waited.get(i));
			start("zklock-waiter-" + i, failures, () -> registry.acquireLease(key, LONG_WAIT));
			threads++;
		}
		int curatorWaiters = 0;
		// A client of its own, as a plain Curator process has: on the registry's client
		// its nodes would share the registry's session
		CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString, 30_000, 15_000,
				new ExponentialBackoffRetry(100, 3));
		curator.start();
		if (curatorPerKey > 0 && !curator.blockUntilConnected(60, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Curator waiters' client not connected to " + connectString);
		}
		for (int c = 0; c < curatorPerKey; c++) {
			for (int i = 0; i < keys; i++) {
				// The usual way: a mutex per thread. Also on this JVM's own keys: the
				// recipe knows nothing of the engine's local queue
				InterProcessMutex mutex = new InterProcessMutex(curator,
						ClusterViewScenario.ROOT + "/" + ClusterViewScenario.key(i));
				start("curator-waiter-" + c + "-" + i, failures,
						() -> mutex.acquire(LONG_WAIT.toMillis(), TimeUnit.MILLISECONDS));
				curatorWaiters++;
			}
		}
		Files.writeString(out, held + "," + threads + "," + curatorWaiters + "," + failures.get() + "\n");
		// Until the harness closes standard input (or dies)
		while (System.in.read() >= 0) {
			// nothing else is sent
		}
		System.out.println("Stopping: " + failures.get() + " waiting calls failed, " + registry.waitingCount()
				+ " still waiting, " + registry.heldCount() + " keys held");
		return (failures.get() == 0) ? 0 : 1;
	}

	private static void start(String name, AtomicInteger failures, Waiting waiting) {
		Thread thread = new Thread(null, () -> {
			try {
				waiting.run();
				// Granted, which nobody releases: a correctness problem of the setup
				failures.incrementAndGet();
				System.err.println(name + " was granted a key its holder never released");
			}
			catch (Exception ex) {
				failures.incrementAndGet();
				System.err.println(name + " failed: " + ex);
			}
		}, name, STACK_BYTES);
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * A waiting call.
	 */
	@FunctionalInterface
	private interface Waiting {

		Object run() throws Exception;

	}

}
