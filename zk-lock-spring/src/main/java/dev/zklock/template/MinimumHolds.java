package dev.zklock.template;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * Releases holds whose work ended before their minimum hold did, when it does, from one
 * daemon thread started on first use. Closing releases every pending hold at once: the
 * application is going away, and its ZooKeeper session with it.
 */
final class MinimumHolds implements AutoCloseable {

	private final Object monitor = new Object();

	private final Set<Pending> pending = ConcurrentHashMap.newKeySet();

	private @Nullable ScheduledExecutorService scheduler;

	private boolean closed;

	/**
	 * Run a release at a {@link System#nanoTime()} deadline, or now if it has passed.
	 * @param deadline when the minimum hold ends
	 * @param release the release, which must not throw
	 */
	void releaseAt(long deadline, Runnable release) {
		long delay = deadline - System.nanoTime();
		if (delay <= 0) {
			release.run();
			return;
		}
		Pending hold = new Pending(release);
		synchronized (this.monitor) {
			if (!this.closed) {
				this.pending.add(hold);
				scheduler().schedule(hold, delay, TimeUnit.NANOSECONDS);
				return;
			}
		}
		hold.run();
	}

	/**
	 * Return how many holds wait for their minimum to pass.
	 * @return the number of pending holds
	 */
	int pendingCount() {
		return this.pending.size();
	}

	private ScheduledExecutorService scheduler() {
		ScheduledExecutorService scheduler = this.scheduler;
		if (scheduler == null) {
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "zklock-hold-at-least");
				thread.setDaemon(true);
				return thread;
			});
			executor.setRemoveOnCancelPolicy(true);
			scheduler = executor;
			this.scheduler = scheduler;
		}
		return scheduler;
	}

	@Override
	public void close() {
		ScheduledExecutorService scheduler;
		synchronized (this.monitor) {
			this.closed = true;
			scheduler = this.scheduler;
		}
		if (scheduler != null) {
			scheduler.shutdownNow();
		}
		for (Pending hold : this.pending) {
			hold.run();
		}
	}

	/**
	 * One hold waiting for its minimum: released once, by the scheduler or by close.
	 */
	private final class Pending implements Runnable {

		private final Runnable release;

		private final AtomicBoolean done = new AtomicBoolean();

		Pending(Runnable release) {
			this.release = release;
		}

		@Override
		public void run() {
			if (this.done.compareAndSet(false, true)) {
				MinimumHolds.this.pending.remove(this);
				this.release.run();
			}
		}

	}

}
