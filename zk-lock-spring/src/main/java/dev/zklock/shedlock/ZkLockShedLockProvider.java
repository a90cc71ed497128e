package dev.zklock.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockPaths;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.MinimumHoldScheduler;

import org.springframework.context.SmartLifecycle;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider LockProvider} backed by a
 * {@link ZkLockRegistry}: declare it as the application's {@code LockProvider} bean in
 * place of a JDBC, Redis or other provider, and {@code @SchedulerLock} methods lock
 * through zk-lock.
 *
 * <p>
 * A lock is a zk-lock {@link ZkLease lease} on the key named like the ShedLock lock (the
 * same lock as {@code @DistributedLock} and {@link ZkLockRegistry#obtain(String)} see
 * under that key), taken with one attempt and no wait, as ShedLock expects: a lock that
 * another node or another thread of this JVM holds gives {@link Optional#empty()}. It is
 * held through an ephemeral ZooKeeper node, so the lock of a node that dies is free as
 * soon as its session expires, not only when {@code lockAtMostFor} has passed; no wall
 * clock is compared between nodes, both durations are measured on this JVM's monotonic
 * clock from the moment the lock was taken.
 *
 * <ul>
 * <li>{@code lockAtLeastFor}: an unlock before it has passed releases the lease only once
 * it has, from a timer thread, so that other nodes cannot run the task again too
 * early.</li>
 * <li>{@code lockAtMostFor}: an upper bound, as with ShedLock's other providers. A lease
 * still held when it passes is released even though the task goes on, so a node that
 * hangs without losing its session cannot keep the task from running elsewhere; choose it
 * well above the task's longest run, or keep the lock alive with
 * {@code KeepAliveLockProvider}, which this provider supports through
 * {@link SimpleLock#extend(Duration, Duration) extend}.</li>
 * </ul>
 *
 * <p>
 * A name that cannot be a zk-lock key is rejected with an
 * {@link IllegalArgumentException}. A failure other than a busy lock, such as ZooKeeper
 * being unreachable, is thrown as a {@link LockException}, so the scheduler logs it
 * instead of skipping the task silently.
 *
 * <p>
 * An unlock returns once ZooKeeper has applied the delete of the lock's node (unlike
 * {@link ZkLockRegistry}'s own releases, which return once it is sent), so that another
 * node may take the lock right after, as ShedLock's contract says.
 *
 * <p>
 * A {@code lockAtLeastFor} outlives a graceful shutdown, as a minimum hold of
 * {@link dev.zklock.template.ZkLockTemplate ZkLockTemplate} does (the same
 * {@link MinimumHoldScheduler} keeps both): as a {@link SmartLifecycle} bean, the
 * provider is stopped when its application context closes, after the task schedulers, and
 * keeps the locks still waiting for their {@code lockAtLeastFor} until it has passed,
 * within the shutdown phase's timeout (see {@link #stop(Runnable)}). Closing the provider
 * releases the ones still waiting at once.
 *
 * @author zk-lock
 */
public class ZkLockShedLockProvider implements ExtensibleLockProvider, SmartLifecycle, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ZkLockShedLockProvider.class);

	/**
	 * Caps durations so that deadlines on the nano clock cannot overflow: about 146
	 * years.
	 */
	private static final long MAX_NANOS = Long.MAX_VALUE / 2;

	/** The longest an unlock waits for ZooKeeper to confirm the delete. */
	private static final Duration RELEASE_CONFIRMATION = Duration.ofSeconds(5);

	private final ZkLockRegistry registry;

	private final Object monitor = new Object();

	/**
	 * Holds unlocked by their task that wait for their {@code lockAtLeastFor} to pass.
	 */
	private final MinimumHoldScheduler minimumHolds = new MinimumHoldScheduler("ZkLockShedLockProvider");

	private @Nullable ScheduledExecutorService scheduler;

	private boolean closed;

	/**
	 * Create a new instance.
	 * @param registry the zk-lock registry that holds the locks
	 */
	public ZkLockShedLockProvider(ZkLockRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	/**
	 * Take the lock named by the configuration, with one attempt.
	 * @param lockConfiguration the name and durations of the lock
	 * @return the lock, or empty if another node or thread holds it, or if the
	 * configuration has a {@code lockAtLeastFor} and the provider is {@link #stop
	 * stopping}: that could not be kept, and another node will run the task
	 * @throws IllegalArgumentException if the name cannot be a zk-lock key
	 * @throws LockException if ZooKeeper could not be asked, or refused
	 * @throws IllegalStateException if the provider is closed
	 */
	@Override
	public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
		String key = keyFor(lockConfiguration.getName());
		synchronized (this.monitor) {
			if (this.closed) {
				throw new IllegalStateException("ZkLockShedLockProvider is closed");
			}
		}
		if (lockConfiguration.getLockAtLeastFor().compareTo(Duration.ZERO) > 0 && !this.minimumHolds.isRunning()) {
			if (logger.isDebugEnabled()) {
				logger.debug("Not locking '" + lockConfiguration.getName() + "': the application is stopping, and its "
						+ "lockAtLeastFor of " + lockConfiguration.getLockAtLeastFor() + " could not be kept");
			}
			return Optional.empty();
		}
		ZkLease lease;
		try {
			lease = this.registry.acquireLease(key, Duration.ZERO);
		}
		catch (LockAcquisitionException ex) {
			if (ex.getReason().isBusy()) {
				return Optional.empty();
			}
			throw new LockException("Could not lock '" + lockConfiguration.getName() + "': " + ex.getMessage(), ex);
		}
		long now = System.nanoTime();
		Hold hold = new Hold(lockConfiguration.getName(), lease);
		hold.expireAt(now + nanos(lockConfiguration.getLockAtMostFor()));
		return Optional
			.of(new ZkSimpleLock(lockConfiguration, hold, now + nanos(lockConfiguration.getLockAtLeastFor())));
	}

	/**
	 * Map a ShedLock lock name to a zk-lock key: the name itself.
	 * @param name the lock name
	 * @return the key
	 * @throws IllegalArgumentException naming the name and what is wrong with it
	 */
	public String keyFor(String name) {
		try {
			LockPaths.validateKey(name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"ShedLock lock name '" + name + "' cannot be a zk-lock key: " + ex.getMessage(), ex);
		}
		return name;
	}

	/**
	 * Lock with a {@code lockAtLeastFor} again after a {@link #stop stop}, as when a
	 * stopped application context is started again. A new provider needs no start.
	 */
	@Override
	public void start() {
		this.minimumHolds.start();
	}

	/**
	 * Stop for a graceful shutdown: keep each lock still waiting for its
	 * {@code lockAtLeastFor} until it has passed, and call back once the last is released
	 * (at once if none waits). Returns at once; the locks waited for are logged at INFO,
	 * with how long each has left. From now on a lock with a {@code lockAtLeastFor} is
	 * not taken ({@link #lock} returns empty, and the task is skipped here): it could not
	 * be kept, and another node will run the task. Locks without one are taken as before.
	 * Spring's lifecycle processor waits for the callback at most for the shutdown
	 * phase's timeout; the locks still waiting then are released by {@link #close()}.
	 * @param callback what to run once no lock waits for its {@code lockAtLeastFor}
	 */
	@Override
	public void stop(Runnable callback) {
		this.minimumHolds.stop(callback);
	}

	/**
	 * Stop as {@link #stop(Runnable)} does, and wait until every lock waiting for its
	 * {@code lockAtLeastFor} is released: at most as long as the longest of them has
	 * left. For use without Spring's lifecycle, before {@link #close()}.
	 */
	@Override
	public void stop() {
		this.minimumHolds.stop();
	}

	/**
	 * Return whether locks with a {@code lockAtLeastFor} are taken: from creation until a
	 * {@link #stop stop} or {@link #close() close}.
	 * @return whether the provider is running
	 */
	@Override
	public boolean isRunning() {
		return this.minimumHolds.isRunning();
	}

	/**
	 * Return {@link MinimumHoldScheduler#SHUTDOWN_PHASE}, as the template's: stopped
	 * after the task schedulers, which let the tasks running at shutdown end, and before
	 * any bean is destroyed.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return MinimumHoldScheduler.SHUTDOWN_PHASE;
	}

	/**
	 * Release the locks that wait for their {@code lockAtLeastFor} now (logged at WARN),
	 * and stop the timer threads. In an application context this comes after the graceful
	 * {@link #stop(Runnable) stop}, which has kept them as long as the shutdown phase
	 * allowed; without one, call {@link #stop()} first to keep them. Locks still held by
	 * a running task are released by its unlock, at once; later calls to {@link #lock}
	 * throw {@link IllegalStateException}.
	 */
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
		this.minimumHolds.close();
	}

	/**
	 * Run a task at a {@link System#nanoTime()} deadline; {@code null} once closed.
	 */
	private @Nullable ScheduledFuture<?> schedule(Runnable task, long deadline) {
		synchronized (this.monitor) {
			if (this.closed) {
				return null;
			}
			ScheduledExecutorService scheduler = this.scheduler;
			if (scheduler == null) {
				ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (runnable) -> {
					Thread thread = new Thread(runnable, "zklock-shedlock");
					thread.setDaemon(true);
					return thread;
				});
				executor.setRemoveOnCancelPolicy(true);
				scheduler = executor;
				this.scheduler = scheduler;
			}
			return scheduler.schedule(task, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
	}

	private static long nanos(Duration duration) {
		if (duration.compareTo(Duration.ofNanos(MAX_NANOS)) > 0) {
			return MAX_NANOS;
		}
		return Math.max(0, duration.toNanos());
	}

	@Override
	public String toString() {
		return "ZkLockShedLockProvider[" + this.registry.getOptions().rootPath() + "]";
	}

	/**
	 * One lease and its deadlines, shared by a lock and the locks it was extended into.
	 * Ends once: by its unlock (at once or after {@code lockAtLeastFor}), at
	 * {@code lockAtMostFor}, or by a failed extension.
	 */
	private final class Hold {

		private final String name;

		private final ZkLease lease;

		private long expiresAt;

		private @Nullable ScheduledFuture<?> expiry;

		private boolean ended;

		Hold(String name, ZkLease lease) {
			this.name = name;
			this.lease = lease;
		}

		/**
		 * Set the {@code lockAtMostFor} deadline; called while the hold has not ended.
		 */
		synchronized void expireAt(long deadline) {
			if (this.expiry != null) {
				this.expiry.cancel(false);
			}
			this.expiresAt = deadline;
			this.expiry = schedule(this::expire, deadline);
		}

		private void expire() {
			synchronized (this) {
				if (this.ended || System.nanoTime() - this.expiresAt < 0) {
					return;
				}
				this.ended = true;
			}
			releaseQuietly("its lockAtMostFor has passed while the task still ran");
		}

		/**
		 * The task is done: release at {@code releaseAt}, or now if it has passed, the
		 * lease is lost (so that its loss is reported to the caller) or the provider is
		 * closed.
		 */
		void unlock(long releaseAt) {
			synchronized (this) {
				if (this.ended) {
					return;
				}
				this.ended = true;
				if (this.expiry != null) {
					this.expiry.cancel(false);
				}
				if (this.lease.state() != LeaseState.LOST && ZkLockShedLockProvider.this.minimumHolds
					.deferRelease(releaseAt, this.name, List.of(this.lease.key()), this::releaseAtLeastFor)) {
					return;
				}
			}
			this.lease.release();
			awaitReleased();
		}

		/**
		 * Move the deadlines of a lease that is still held; a lease past its
		 * {@code lockAtMostFor}, or lost, is released instead, as another node may hold
		 * the lock already.
		 */
		boolean extend(long expiresAt) {
			synchronized (this) {
				if (this.ended) {
					return false;
				}
				if (System.nanoTime() - this.expiresAt < 0 && this.lease.state() != LeaseState.LOST) {
					expireAt(expiresAt);
					return true;
				}
				this.ended = true;
				if (this.expiry != null) {
					this.expiry.cancel(false);
				}
			}
			releaseQuietly("it could not be extended");
			return false;
		}

		private void releaseAtLeastFor() {
			releaseQuietly("its lockAtLeastFor has passed, or the provider was closed");
		}

		void releaseQuietly(String why) {
			try {
				this.lease.release();
				if (logger.isDebugEnabled()) {
					logger.debug("Released ShedLock lock '" + this.name + "': " + why);
				}
			}
			catch (RuntimeException ex) {
				logger.warn("ShedLock lock '" + this.name + "' released because " + why + ": " + ex.getMessage());
			}
		}

	}

	/**
	 * Wait, while connected, until ZooKeeper has applied the delete of a released lease.
	 * A zk-lock release returns once the delete is sent; ShedLock's contract is that
	 * another node may lock right after an unlock returns, and that node's one attempt
	 * would still find the node if its create overtook the delete.
	 */
	private void awaitReleased() {
		if (!this.registry.getClient().getZookeeperClient().isConnected()) {
			return;
		}
		try {
			this.registry.awaitReleased(RELEASE_CONFIRMATION);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The lock handed to ShedLock: valid until unlocked or extended, as ShedLock's
	 * {@link AbstractSimpleLock} enforces.
	 */
	private final class ZkSimpleLock extends AbstractSimpleLock {

		private final Hold hold;

		private final long lockedAtLeastUntil;

		ZkSimpleLock(LockConfiguration lockConfiguration, Hold hold, long lockedAtLeastUntil) {
			super(lockConfiguration);
			this.hold = hold;
			this.lockedAtLeastUntil = lockedAtLeastUntil;
		}

		@Override
		protected void doUnlock() {
			this.hold.unlock(this.lockedAtLeastUntil);
		}

		@Override
		protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
			long now = System.nanoTime();
			if (!this.hold.extend(now + nanos(newConfiguration.getLockAtMostFor()))) {
				return Optional.empty();
			}
			return Optional
				.of(new ZkSimpleLock(newConfiguration, this.hold, now + nanos(newConfiguration.getLockAtLeastFor())));
		}

		@Override
		public String toString() {
			return "ZkSimpleLock[" + this.lockConfiguration.getName() + "]";
		}

	}

}
