package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * What the lock clients that the cross-process tests start in child JVMs share: a
 * connected Curator client, and worker threads whose first failure ends the JVM with
 * status 2, which {@link ChildJvm#awaitSuccess} reports.
 */
final class WorkerJvm {

	private WorkerJvm() {
	}

	/**
	 * The work of one thread.
	 */
	@FunctionalInterface
	interface Work {

		void run(int thread) throws Exception;

	}

	/**
	 * Connect, make the threads' work with the client, run it on {@code threads} threads
	 * and wait for them.
	 */
	static void run(String connectString, int threads, java.util.function.Function<CuratorFramework, Work> work)
			throws Exception {
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000,
				new ExponentialBackoffRetry(100, 3))) {
			client.start();
			client.blockUntilConnected(20, TimeUnit.SECONDS);
			Work body = work.apply(client);
			List<Thread> workers = new ArrayList<>();
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			for (int t = 0; t < threads; t++) {
				int index = t;
				Thread worker = new Thread(() -> {
					try {
						body.run(index);
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

}
