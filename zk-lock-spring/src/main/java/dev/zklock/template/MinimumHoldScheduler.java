package dev.zklock.template;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Keeps the locks whose work ended before their minimum hold did until it has passed,
 * then releases them, from one daemon thread started on first use. The one piece of code
 * behind {@link LockDefinition#withHoldAtLeast} (and so
 * {@code @DistributedLock(holdAtLeast)}) in {@link ZkLockTemplate} and ShedLock's
 * {@code lockAtLeastFor} in {@link dev.zklock.shedlock.ZkLockShedLockProvider}, which
 * each own one; an application has no use for one of its own.
 *
 * <p>
 * A minimum hold keeps other instances from running the work again too soon, and an
 * instance is stopped most often right after it ran the work: in a rolling deployment. So
 * a graceful stop keeps the pending holds: {@link #stop(Runnable)}, which the owner's
 * {@link SmartLifecycle#stop(Runnable)} calls when the application context closes, turns
 * {@link #isRunning()} false (the owners then take no new lock with a minimum hold, which
 * could not be kept), logs at INFO which holds it waits for, and calls back once the last
 * of them has ended. Spring's lifecycle processor waits for that callback no longer than
 * the shutdown phase's timeout; a hold still pending when the owner is destroyed then is
 * released by {@link #close()}, with a WARN naming it. {@link #close()} without a stop
 * releases the pending holds at once.
 *
 * @author zk-lock
 * @see ZkLockTemplate#stop(Runnable)
 */
public final class MinimumHoldScheduler implements AutoCloseable {

	/**
	 * The lifecycle phase of the owners: stopped after Spring's task executors and
	 * schedulers ({@link ExecutorConfigurationSupport#DEFAULT_PHASE}), which let the work
	 * still running when the context closes finish, and so after a web server's graceful
	 * shutdown too; before any bean is destroyed, the ZooKeeper client among them. The
	 * holds' deadlines do not move, so a later phase does not lengthen them: it only lets
	 * the work that ends first start its hold before the wait begins.
	 */
	public static final int SHUTDOWN_PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE - 1024;

	private static final Log logger = LogFactory.getLog(MinimumHoldScheduler.class);

	private final String owner;

	private final Object monitor = new Object();

	/** Guarded by monitor. */
	private final Set<Pending> pending = new LinkedHashSet<>();

	/** Guarded by monitor. */
	private @Nullable ScheduledExecutorService scheduler;

	/** Whether new minimum holds may start. Guarded by monitor. */
	private boolean running = true;

	/** Guarded by monitor. */
	private boolean closed;

	/** Called once no hold is pending. Guarded by monitor. */
	private @Nullable Runnable stopCallback;

	/**
	 * Create a new instance.
	 * @param owner what owns the holds, for the log: {@code ZkLockTemplate}, say
	 */
	public MinimumHoldScheduler(String owner) {
		this.owner = owner;
	}

	/**
	 * Keep a hold until its minimum has passed, then run its release. A hold is kept so
	 * after a {@link #stop stop} too (its lock was taken before), until it ends or this
	 * is closed.
	 * @param deadline when the minimum hold ends, on the {@link System#nanoTime()} clock
	 * @param name the lock's name, for the log
	 * @param keys the keys held, for the log
	 * @param release the release, which must not throw
	 * @return {@code false} if the deadline has passed or this is closed: nothing is kept
	 * then, and the caller releases the hold itself, now
	 */
	public boolean deferRelease(long deadline, String name, Collection<String> keys, Runnable release) {
		long delay = deadline - System.nanoTime();
		if (delay <= 0) {
			return false;
		}
		Pending hold = new Pending(name, List.copyOf(keys), deadline, release);
		synchronized (this.monitor) {
			if (this.closed) {
				return false;
			}
			this.pending.add(hold);
			scheduler().schedule(hold, delay, TimeUnit.NANOSECONDS);
		}
		return true;
	}

	/**
	 * Return whether new minimum holds may start: {@code true} from creation until a
	 * {@link #stop stop} or {@link #close()}, and again after a {@link #start()}.
	 * @return whether locks with a minimum hold may be taken
	 */
	public boolean isRunning() {
		synchronized (this.monitor) {
			return this.running;
		}
	}

	/**
	 * Take minimum holds again after a {@link #stop stop}, as when a stopped application
	 * context is started again. Does nothing once closed.
	 */
	public void start() {
		synchronized (this.monitor) {
			if (!this.closed) {
				this.running = true;
			}
		}
	}

	/**
	 * Take no new minimum hold, and call back once every pending hold has ended; at once
	 * if none is pending. The holds waited for are logged at INFO, once, with how long
	 * each has left. Returns at once: the callback comes from the thread that releases
	 * the last hold.
	 * @param callback what to run once no hold is pending
	 */
	public void stop(Runnable callback) {
		boolean waiting;
		List<String> named = List.of();
		synchronized (this.monitor) {
			this.running = false;
			waiting = !this.pending.isEmpty();
			if (waiting) {
				Runnable previous = this.stopCallback;
				this.stopCallback = (previous != null) ? () -> {
					previous.run();
					callback.run();
				} : callback;
				named = describe(this.pending, "left");
			}
		}
		if (!waiting) {
			callback.run();
			return;
		}
		if (!named.isEmpty() && logger.isInfoEnabled()) {
			logger.info(this.owner + " stops once its minimum holds have ended: waiting for " + count(named) + ": "
					+ String.join(", ", named));
		}
	}

	/**
	 * Take no new minimum hold, and wait until every pending hold has ended: as long as
	 * the longest minimum hold has left, at most. For use without Spring's lifecycle,
	 * before {@link #close()}.
	 */
	public void stop() {
		CountDownLatch stopped = new CountDownLatch(1);
		stop(stopped::countDown);
		try {
			// Bounded by the holds' deadlines: once stopped, only work already running
			// can add a hold
			stopped.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Release every pending hold now, stop the timer thread, and keep no hold from now
	 * on. A hold released before its minimum has passed is logged at WARN: a stop still
	 * waiting for it was cut short (by the shutdown phase's timeout, in an application
	 * context), or there was no stop.
	 */
	@Override
	public void close() {
		ScheduledExecutorService scheduler;
		List<Pending> cut;
		boolean stopWaits;
		synchronized (this.monitor) {
			this.closed = true;
			this.running = false;
			scheduler = this.scheduler;
			cut = List.copyOf(this.pending);
			stopWaits = this.stopCallback != null;
		}
		if (scheduler != null) {
			scheduler.shutdownNow();
		}
		List<String> early = describe(cut, "early");
		if (!early.isEmpty() && logger.isWarnEnabled()) {
			logger.warn(this.owner + " cut " + count(early) + " short, as "
					+ (stopWaits
							? "the shutdown phase's timeout ended the stop's wait first (Spring Boot: "
									+ "spring.lifecycle.timeout-per-shutdown-phase)"
							: "it was closed first (a stop() before close() waits for them)")
					+ ": " + String.join(", ", early));
		}
		for (Pending hold : cut) {
			hold.run();
		}
	}

	/**
	 * Name the holds that have time left, each with how much.
	 */
	private static List<String> describe(Collection<Pending> holds, String what) {
		long now = System.nanoTime();
		List<String> named = new ArrayList<>();
		for (Pending hold : holds) {
			long left = TimeUnit.NANOSECONDS.toMillis(hold.deadline - now);
			if (left > 0) {
				named.add("lock '" + hold.name + "' on "
						+ ((hold.keys.size() == 1) ? "key '" + hold.keys.get(0) + "'" : "keys " + hold.keys) + ", "
						+ left + " ms " + what);
			}
		}
		return named;
	}

	private static String count(List<String> holds) {
		return holds.size() + " minimum hold" + ((holds.size() == 1) ? "" : "s");
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

	/**
	 * One hold waiting for its minimum: released once, by the timer or by close; the
	 * release of the last one pending ends a stop's wait.
	 */
	private final class Pending implements Runnable {

		private final String name;

		private final List<String> keys;

		private final long deadline;

		private final Runnable release;

		private final AtomicBoolean done = new AtomicBoolean();

		Pending(String name, List<String> keys, long deadline, Runnable release) {
			this.name = name;
			this.keys = keys;
			this.deadline = deadline;
			this.release = release;
		}

		@Override
		public void run() {
			if (!this.done.compareAndSet(false, true)) {
				return;
			}
			Runnable stopped = null;
			synchronized (MinimumHoldScheduler.this.monitor) {
				MinimumHoldScheduler.this.pending.remove(this);
				if (MinimumHoldScheduler.this.pending.isEmpty()) {
					stopped = MinimumHoldScheduler.this.stopCallback;
					MinimumHoldScheduler.this.stopCallback = null;
				}
			}
			try {
				this.release.run();
			}
			finally {
				if (stopped != null) {
					stopped.run();
				}
			}
		}

	}

}
