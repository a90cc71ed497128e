package dev.zklock.benchmarks;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * One JVM of scenario 3: T threads take random keys of K until a common end time, hold
 * each for a short busy spin, and record each grant as
 * {@code key,requested,entered,exited,jvm}. {@code System.nanoTime} is one clock for all
 * processes of a machine, so the harness can check holds of different JVMs for overlap.
 *
 * <p>
 * Arguments:
 * {@code zklock|curator|raw connectString keys threads workMicros jvm outFile}, or those
 * of a {@link LingerWorker} role for scenario 5 ({@code linger-owner},
 * {@code linger-visitor}), or of the {@link ViewWorker} role for scenario 8
 * ({@code view-worker}). Once connected it writes {@code outFile.ready} holding the
 * client port of the server it talks to, then reads {@code startNanos endNanos} from
 * standard input, so every JVM of a run starts at once however long each took to start.
 * It exits 0; 1 if a thread failed or was still waiting a minute after the end; 2 if it
 * could not set up, or standard input ended before the start line (the harness is gone).
 * The harness reports any of them.
 */
public final class MultiJvmWorker {

	private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(60);

	private MultiJvmWorker() {
	}

	public static void main(String[] args) {
		int status;
		try {
			status = run(args);
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			status = 2;
		}
		// Curator's and the registry's threads must not keep a finished worker alive
		System.exit(status);
	}

	private static int run(String[] args) throws Exception {
		String implementation = args[0];
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(args[1], 30_000, 15_000,
				new ExponentialBackoffRetry(100, 3))) {
			client.start();
			if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not connected to " + args[1] + " within 60 s");
			}
			Role role = implementation.startsWith(LingerWorker.PREFIX) ? LingerWorker.role(args, client)
					: implementation.equals(ViewWorker.ROLE) ? ViewWorker.role(args, client) : grants(args, client);
			Files.writeString(Path.of(role.out() + ".ready"), server(client));
			String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)).readLine();
			if (go == null) {
				throw new IllegalStateException("The harness closed standard input before the start");
			}
			String[] times = go.trim().split(" ");
			return role.run(Long.parseLong(times[0]), Long.parseLong(times[1]));
		}
	}

	/**
	 * Scenario 3's role: threads that take random keys.
	 */
	private static Role grants(String[] args, CuratorFramework client) throws Exception {
		int keyCount = Integer.parseInt(args[2]);
		int threads = Integer.parseInt(args[3]);
		long workNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[4]));
		String jvm = args[5];
		Path out = Path.of(args[6]);
		String[] keys = new String[keyCount];
		Arrays.setAll(keys, (i) -> "k" + i);
		Supplier<Holder> holders = holders(args[0], client, keys);
		return new Role() {
			@Override
			public Path out() {
				return out;
			}

			@Override
			public int run(long start, long end) throws Exception {
				return MultiJvmWorker.run(holders, keys, threads, workNanos, start, end, jvm, out);
			}
		};
	}

	private static int run(Supplier<Holder> holders, String[] keys, int threads, long workNanos, long start, long end,
			String jvm, Path out) throws Exception {
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> workers = new ArrayList<>();
		List<Grants> grants = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Holder holder = holders.get();
			Grants own = new Grants();
			grants.add(own);
			Thread worker = new Thread(() -> {
				try {
					loop(holder, keys, workNanos, start, end, own);
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "worker-" + t);
			worker.setDaemon(true);
			workers.add(worker);
			worker.start();
		}
		boolean hung = false;
		for (Thread worker : workers) {
			worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end + DRAIN_NANOS - System.nanoTime())));
			hung |= worker.isAlive();
		}
		try (BufferedWriter writer = Files.newBufferedWriter(out)) {
			for (int t = 0; t < threads; t++) {
				// A thread still waiting may be writing its record: leave it out
				if (!workers.get(t).isAlive()) {
					grants.get(t).write(writer, keys, jvm);
				}
			}
		}
		Throwable failed = failure.get();
		if (failed != null) {
			System.err.println("A worker thread failed:");
			failed.printStackTrace();
		}
		if (hung) {
			System.err.println("Worker threads still waiting " + DRAIN_NANOS / 1_000_000_000 + " s after the end");
		}
		return (failed != null || hung) ? 1 : 0;
	}

	private static void loop(Holder holder, String[] keys, long workNanos, long start, long end, Grants own)
			throws Exception {
		while (System.nanoTime() < start) {
			LockSupport.parkNanos(start - System.nanoTime());
		}
		while (System.nanoTime() < end) {
			int key = ThreadLocalRandom.current().nextInt(keys.length);
			long requested = System.nanoTime();
			holder.acquire(keys[key]);
			long entered = System.nanoTime();
			while (System.nanoTime() - entered < workNanos) {
				Thread.onSpinWait();
			}
			long exited = System.nanoTime();
			holder.release(keys[key]);
			own.add(key, requested, entered, exited);
		}
	}

	/**
	 * A source of one {@link Holder} per thread.
	 */
	private static Supplier<Holder> holders(String implementation, CuratorFramework client, String[] keys)
			throws Exception {
		switch (implementation) {
			case "zklock" -> {
				// One registry per JVM, shared by its threads: what an application does
				ZkLockRegistry registry = new ZkLockRegistry(client, ZkLockOptions.defaults().withRootPath("/zklock"));
				Holder shared = Holder.of((key) -> registry.obtain(key).lock(), (key) -> registry.obtain(key).unlock());
				return () -> shared;
			}
			case "curator" -> {
				// The usual way: a thread keeps one mutex per key (a mutex is
				// reentrant per thread, so threads must not share one)
				return () -> {
					Map<String, InterProcessMutex> mutexes = new HashMap<>();
					return Holder.of(
							(key) -> mutexes.computeIfAbsent(key, (k) -> new InterProcessMutex(client, "/curator/" + k))
								.acquire(),
							(key) -> Objects.requireNonNull(mutexes.get(key), "acquired before").release());
				};
			}
			case "raw" -> {
				for (String key : keys) {
					try {
						client.create().creatingParentsIfNeeded().forPath("/raw/" + key);
					}
					catch (KeeperException.NodeExistsException ex) {
						// another JVM made it
					}
				}
				// The floor: the create and delete every Curator-compatible lock
				// writes, with no read, no wait and no exclusion
				return () -> new Holder() {
					private String node = "";

					@Override
					public void acquire(String key) throws Exception {
						this.node = client.create()
							.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
							.forPath("/raw/" + key + "/n-");
					}

					@Override
					public void release(String key) throws Exception {
						client.delete().forPath(this.node);
					}
				};
			}
			default -> throw new IllegalArgumentException("Unknown implementation " + implementation);
		}
	}

	/**
	 * The client port of the server the client talks to, read from the ZooKeeper handle's
	 * description ({@code ... remoteserver:host/127.0.0.1:port ...}).
	 */
	private static String server(CuratorFramework client) throws Exception {
		String description = client.getZookeeperClient().getZooKeeper().toString();
		int at = description.indexOf("remoteserver:");
		if (at < 0) {
			return "?";
		}
		String remote = description.substring(at).split(" ")[0];
		return remote.substring(remote.lastIndexOf(':') + 1);
	}

	/**
	 * What a worker JVM does once the harness starts it, set up before it reports ready.
	 */
	interface Role {

		/**
		 * The file the results go to; {@code out.ready} tells the harness the worker is
		 * ready.
		 */
		Path out();

		/**
		 * Run from {@code start} to {@code end} ({@link System#nanoTime()}), write the
		 * results and return the exit status.
		 */
		int run(long start, long end) throws Exception;

	}

	/**
	 * How one thread takes and gives back a key.
	 */
	interface Holder {

		void acquire(String key) throws Exception;

		void release(String key) throws Exception;

		static Holder of(Step acquire, Step release) {
			return new Holder() {
				@Override
				public void acquire(String key) throws Exception {
					acquire.run(key);
				}

				@Override
				public void release(String key) throws Exception {
					release.run(key);
				}
			};
		}

	}

	interface Step {

		void run(String key) throws Exception;

	}

	/**
	 * One thread's grants, four longs each, in a growing array: a long run must not spend
	 * its time in the allocator or the collector.
	 */
	private static final class Grants {

		private long[] data = new long[4 * 1024];

		private int size;

		void add(int key, long requested, long entered, long exited) {
			if (this.size + 4 > this.data.length) {
				this.data = Arrays.copyOf(this.data, this.data.length * 2);
			}
			this.data[this.size++] = key;
			this.data[this.size++] = requested;
			this.data[this.size++] = entered;
			this.data[this.size++] = exited;
		}

		void write(BufferedWriter writer, String[] keys, String jvm) throws IOException {
			for (int i = 0; i < this.size; i += 4) {
				writer.write(keys[(int) this.data[i]] + "," + this.data[i + 1] + "," + this.data[i + 2] + ","
						+ this.data[i + 3] + "," + jvm);
				writer.newLine();
			}
		}

	}

}
