package dev.zklock.benchmarks;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * The two worker roles of scenario 5, run by {@link MultiJvmWorker}.
 *
 * <p>
 * The owner ({@code linger-owner connectString outFile zklock|curator|spin lingerMillis
 * workMicros warmupCycles}) locks key {@value #KEY} in a loop with one thread until the
 * end: lock, a busy spin of {@code workMicros}, unlock; {@code spin} (the control) runs
 * the same loop without a lock. It writes
 * {@code owner,cycles,reused,meanNanos,p50Nanos,p99Nanos}, where a cycle's cost is the
 * time spent in lock and unlock (not the spin) and {@code reused} counts the cycles that
 * had the fencing token of the cycle before (zk-lock only: the node was kept), and its
 * holds as {@code span,token,firstEntered,lastExited}: consecutive holds with one token
 * and less than {@link #SPAN_GAP_NANOS} between them make one span, so millions of
 * microsecond cycles do not make a file of millions of lines.
 *
 * <p>
 * The visitor ({@code linger-visitor connectString outFile everyMillis holdMicros
 * waitMillis}) takes key {@value #KEY} every {@code everyMillis} with zk-lock and no
 * linger, waiting at most {@code waitMillis}, holds it for a busy spin of
 * {@code holdMicros} and releases it; later in each period it does the same with key
 * {@value #FREE_KEY}, which nobody else uses, and takes one sample of the budget
 * ({@link #probe}), so that the baseline and the budget are measured under the load of
 * the run. It writes {@code visit,key,requested,entered,exited,token},
 * {@code timeout,key,requested} for a visit that did not get the lock, and
 * {@code probe,notificationNanos,deleteNanos}.
 *
 * <p>
 * A visitor's hold is longer than {@link #SPAN_GAP_NANOS}, so it cannot fit between two
 * holds of one span: a visitor hold that overlaps a span overlaps one of the owner's
 * holds.
 */
final class LingerWorker {

	static final String PREFIX = "linger-";

	static final String OWNER = PREFIX + "owner";

	static final String VISITOR = PREFIX + "visitor";

	/**
	 * The root path of every lock of the scenario, for zk-lock and Curator alike.
	 */
	static final String ROOT = "/linger";

	static final String KEY = "k";

	static final String FREE_KEY = "free";

	static final long SPAN_GAP_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

	/**
	 * The parent of the budget's probe nodes.
	 */
	static final String PROBE_PARENT = "/linger-budget";

	/**
	 * The node of the hand-over probe ({@link #handOver}): the visitor creates it, the
	 * owner's JVM deletes it when told.
	 */
	static final String HAND_OVER_NODE = "/linger-hand-over";

	private static final int RESERVOIR = 1 << 16;

	private LingerWorker() {
	}

	static MultiJvmWorker.Role role(String[] args, CuratorFramework client) throws Exception {
		Path out = Path.of(args[2]);
		return switch (args[0]) {
			case OWNER -> owner(client, out, args[3], Duration.ofMillis(Long.parseLong(args[4])),
					TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[5])), Integer.parseInt(args[6]));
			case VISITOR -> visitor(client, args[1], out, TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3])),
					TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[4])), Long.parseLong(args[5]));
			default -> throw new IllegalArgumentException("Unknown role " + args[0]);
		};
	}

	private static MultiJvmWorker.Role owner(CuratorFramework client, Path out, String implementation, Duration linger,
			long workNanos, int warmupCycles) throws Exception {
		Tokened holder = switch (implementation) {
			case "zklock" -> {
				ZkLockRegistry registry = new ZkLockRegistry(client,
						ZkLockOptions.defaults().withRootPath(ROOT).withLinger(linger));
				// The handle is kept, as an application that re-locks in a loop would
				ZkLock lock = registry.obtain(KEY);
				warmUp(registry.obtain("warm-up"), warmupCycles);
				yield Tokened.of(lock::lock, lock::fencingToken, lock::unlock);
			}
			case "curator" -> {
				// One mutex, acquired and released by one thread: Curator's cheapest
				// cycle
				InterProcessMutex mutex = new InterProcessMutex(client, ROOT + "/" + KEY);
				warmUp(new InterProcessMutex(client, ROOT + "/warm-up"), warmupCycles);
				yield Tokened.of(mutex::acquire, () -> 0L, mutex::release);
			}
			// The control: the same loop, timed the same way, with no lock to take
			case LingerScenario.SPINNER -> Tokened.of(() -> {
			}, () -> 0L, () -> {
			});
			default -> throw new IllegalArgumentException("Unknown implementation " + implementation);
		};
		deleteWhenCreated(client.getZookeeperClient().getZooKeeper());
		return role(out, (start, end) -> ownerLoop(holder, workNanos, start, end, out));
	}

	/**
	 * The owner's side of the hand-over probe: on the owner's client, as the lock's own
	 * child watch is, delete {@link #HAND_OVER_NODE} as soon as its creation is told, as
	 * a lingering owner deletes its node when another participant's is.
	 */
	private static void deleteWhenCreated(ZooKeeper owner) throws Exception {
		Watcher responder = new Watcher() {
			@Override
			public void process(WatchedEvent event) {
				if (event.getType() == Watcher.Event.EventType.NodeCreated) {
					owner.delete(HAND_OVER_NODE, -1, (rc, path, ctx) -> {
					}, null);
				}
				if (event.getType() != Watcher.Event.EventType.None) {
					// Sent after the delete: it finds no node and watches for the next
					owner.exists(HAND_OVER_NODE, this, (rc, path, ctx, stat) -> {
					}, null);
				}
			}
		};
		owner.exists(HAND_OVER_NODE, responder);
	}

	private static void warmUp(ZkLock lock, int cycles) {
		for (int i = 0; i < cycles; i++) {
			lock.lock();
			lock.unlock();
		}
	}

	private static void warmUp(InterProcessMutex mutex, int cycles) throws Exception {
		for (int i = 0; i < cycles; i++) {
			mutex.acquire();
			mutex.release();
		}
	}

	private static int ownerLoop(Tokened holder, long workNanos, long start, long end, Path out) throws Exception {
		Spans spans = new Spans();
		long[] costs = new long[RESERVOIR];
		long cycles = 0;
		long reused = 0;
		long costSum = 0;
		long previousToken = Long.MIN_VALUE;
		awaitStart(start);
		while (System.nanoTime() < end) {
			long requested = System.nanoTime();
			holder.acquire();
			long entered = System.nanoTime();
			long token = holder.token();
			while (System.nanoTime() - entered < workNanos) {
				Thread.onSpinWait();
			}
			long exited = System.nanoTime();
			holder.release();
			long cost = (entered - requested) + (System.nanoTime() - exited);
			spans.add(token, entered, exited);
			if (token != 0 && token == previousToken) {
				reused++;
			}
			previousToken = token;
			costSum += cost;
			// A uniform sample of the costs for the percentiles (reservoir sampling): a
			// fixed array however many cycles a long run makes
			if (cycles < RESERVOIR) {
				costs[(int) cycles] = cost;
			}
			else {
				long slot = ThreadLocalRandom.current().nextLong(cycles + 1);
				if (slot < RESERVOIR) {
					costs[(int) slot] = cost;
				}
			}
			cycles++;
		}
		long[] sample = Arrays.copyOf(costs, (int) Math.min(cycles, RESERVOIR));
		Arrays.sort(sample);
		try (BufferedWriter writer = Files.newBufferedWriter(out)) {
			writer.write("owner," + cycles + "," + reused + "," + ((cycles == 0) ? -1 : costSum / cycles) + ","
					+ percentile(sample, 0.50) + "," + percentile(sample, 0.99));
			writer.newLine();
			spans.write(writer);
		}
		return 0;
	}

	private static MultiJvmWorker.Role visitor(CuratorFramework client, String connectString, Path out, long everyNanos,
			long holdNanos, long waitMillis) throws Exception {
		// No linger: the visitor is an ordinary application that wants the key now and
		// then
		ZkLockRegistry registry = new ZkLockRegistry(client, ZkLockOptions.defaults().withRootPath(ROOT));
		ZkLock owners = registry.obtain(KEY);
		ZkLock free = registry.obtain(FREE_KEY);
		// The first lock of a key creates its parent node: not part of any visit
		free.lock();
		free.unlock();
		// The probe's watching side: a second session, as the owner's is another
		CuratorFramework watching = CuratorFrameworkFactory.newClient(connectString, 30_000, 15_000,
				new ExponentialBackoffRetry(100, 3));
		watching.start();
		if (!watching.blockUntilConnected(60, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Not connected to " + connectString + " within 60 s");
		}
		ZooKeeper writer = client.getZookeeperClient().getZooKeeper();
		ZooKeeper watcher = watching.getZookeeperClient().getZooKeeper();
		probe(watcher, writer);
		return role(out, (start, end) -> {
			awaitStart(start);
			try (BufferedWriter results = Files.newBufferedWriter(out)) {
				// A fifth of a period in, so that the owner has its node when the first
				// visit comes; the free key and the probes evenly after it, each clear of
				// the delete the one before sent
				for (long at = start + everyNanos / 5; at < end; at += everyNanos) {
					visit(owners, at, holdNanos, waitMillis, results);
					visit(free, at + everyNanos * 2 / 5, holdNanos, waitMillis, results);
					awaitStart(at + everyNanos * 3 / 5);
					long[] sample = probe(watcher, writer);
					results.write("probe," + sample[0] + "," + sample[1]);
					results.newLine();
					long handOverAt = at + everyNanos * 4 / 5;
					if (handOverAt < end) {
						awaitStart(handOverAt);
						long handedOver = handOver(writer);
						if (handedOver >= 0) {
							results.write("hand-over," + handedOver);
							results.newLine();
						}
					}
				}
			}
			finally {
				watching.close();
			}
			return 0;
		});
	}

	/**
	 * One sample of the visitor's budget: {@code watcher} arms a child watch on
	 * {@link #PROBE_PARENT}, {@code writer} creates an ephemeral child, as a visitor
	 * joins the queue behind a lingering node, and deletes it, as the lingering owner
	 * then does. Returns the nanoseconds from the create call until the watch fired, and
	 * those of the synchronous delete.
	 */
	static long[] probe(ZooKeeper watcher, ZooKeeper writer) throws Exception {
		try {
			writer.create(PROBE_PARENT, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
		}
		catch (KeeperException.NodeExistsException ex) {
			// made by an earlier sample or JVM
		}
		AtomicLong fired = new AtomicLong();
		CountDownLatch latch = new CountDownLatch(1);
		watcher.getChildren(PROBE_PARENT, (event) -> {
			if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
				fired.set(System.nanoTime());
				latch.countDown();
			}
		});
		long created = System.nanoTime();
		String node = writer.create(PROBE_PARENT + "/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
				CreateMode.EPHEMERAL_SEQUENTIAL);
		if (!latch.await(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("No child watch within 10 s");
		}
		long deleting = System.nanoTime();
		writer.delete(node, -1);
		return new long[] { fired.get() - created, System.nanoTime() - deleting };
	}

	/**
	 * One sample of the same two steps taken through the owner's JVM, under its load:
	 * {@code visitor} creates {@link #HAND_OVER_NODE}, the owner's client is told and
	 * deletes it ({@link #deleteWhenCreated}), {@code visitor} is told of the delete.
	 * Returns the nanoseconds from the create call until then, or -1 if the owner did not
	 * delete the node within a second (it stops at the end of the run), which is then
	 * deleted here.
	 */
	static long handOver(ZooKeeper visitor) throws Exception {
		AtomicLong deleted = new AtomicLong();
		CountDownLatch gone = new CountDownLatch(1);
		Watcher watcher = (event) -> {
			if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
				deleted.set(System.nanoTime());
				gone.countDown();
			}
		};
		visitor.addWatch(HAND_OVER_NODE, watcher, AddWatchMode.PERSISTENT);
		try {
			long created = System.nanoTime();
			visitor.create(HAND_OVER_NODE, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
			if (!gone.await(1, TimeUnit.SECONDS)) {
				try {
					visitor.delete(HAND_OVER_NODE, -1);
				}
				catch (KeeperException.NoNodeException ex) {
					// deleted by the owner after all
				}
				return -1;
			}
			return deleted.get() - created;
		}
		finally {
			visitor.removeWatches(HAND_OVER_NODE, watcher, Watcher.WatcherType.Any, true);
		}
	}

	private static void visit(ZkLock lock, long at, long holdNanos, long waitMillis, BufferedWriter writer)
			throws Exception {
		awaitStart(at);
		long requested = System.nanoTime();
		if (!lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
			writer.write("timeout," + lock.key() + "," + requested);
			writer.newLine();
			return;
		}
		long entered = System.nanoTime();
		long token = lock.fencingToken();
		while (System.nanoTime() - entered < holdNanos) {
			Thread.onSpinWait();
		}
		long exited = System.nanoTime();
		lock.unlock();
		writer.write("visit," + lock.key() + "," + requested + "," + entered + "," + exited + "," + token);
		writer.newLine();
	}

	private static void awaitStart(long start) {
		while (System.nanoTime() < start) {
			LockSupport.parkNanos(start - System.nanoTime());
		}
	}

	private static long percentile(long[] sorted, double quantile) {
		if (sorted.length == 0) {
			return -1;
		}
		int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
		return sorted[Math.max(0, index)];
	}

	private static MultiJvmWorker.Role role(Path out, Loop loop) {
		return new MultiJvmWorker.Role() {
			@Override
			public Path out() {
				return out;
			}

			@Override
			public int run(long start, long end) throws Exception {
				return loop.run(start, end);
			}
		};
	}

	/**
	 * A role's work between the start and the end, returning the exit status.
	 */
	interface Loop {

		int run(long start, long end) throws Exception;

	}

	/**
	 * Acquire or release.
	 */
	interface Step {

		void run() throws Exception;

	}

	/**
	 * One lock as the owner uses it: acquire, read the fencing token (0 if there is
	 * none), release.
	 */
	interface Tokened {

		void acquire() throws Exception;

		long token();

		void release() throws Exception;

		static Tokened of(Step acquire, LongSupplier token, Step release) {
			return new Tokened() {
				@Override
				public void acquire() throws Exception {
					acquire.run();
				}

				@Override
				public long token() {
					return token.getAsLong();
				}

				@Override
				public void release() throws Exception {
					release.run();
				}
			};
		}

	}

	/**
	 * The owner's holds, merged into spans of one token, as a growing array of three
	 * longs each.
	 */
	private static final class Spans {

		private long[] data = new long[3 * 1024];

		private int size;

		void add(long token, long entered, long exited) {
			if (this.size > 0 && this.data[this.size - 3] == token
					&& entered - this.data[this.size - 1] < SPAN_GAP_NANOS) {
				this.data[this.size - 1] = exited;
				return;
			}
			if (this.size + 3 > this.data.length) {
				this.data = Arrays.copyOf(this.data, this.data.length * 2);
			}
			this.data[this.size++] = token;
			this.data[this.size++] = entered;
			this.data[this.size++] = exited;
		}

		void write(BufferedWriter writer) throws IOException {
			for (int i = 0; i < this.size; i += 3) {
				writer.write("span," + this.data[i] + "," + this.data[i + 1] + "," + this.data[i + 2]);
				writer.newLine();
			}
		}

	}

}
