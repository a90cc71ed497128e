package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What an exclusive lock's entry needs to keep its node after the last local holder
 * released it ({@link ZkLockOptions#linger()}): how long, the client's current session (a
 * kept node is reused only on the session that created it), the reaper that deletes the
 * node when the linger ends, and a timer.
 *
 * <p>
 * A kept node is safe to reuse only while no other participant queues behind it. The
 * entry learns that from the child watch that the child list which granted the node armed
 * on the lock path: ZooKeeper fires it on the first change of the children after that
 * read, on the client's one event thread, after the reply of the read. So an entry that
 * has seen no child event since the list that showed no other participant knows that the
 * watch is still armed, and the first participant to join will fire it; the entry then
 * deletes the node at once.
 */
final class Linger {

	private final long nanos;

	private final NodeReaper reaper;

	private final LongSupplier currentSession;

	/** Removes an entry whose node went from its table, if nobody else uses it. */
	private final Consumer<LockEntry> retire;

	private final ScheduledThreadPoolExecutor timer;

	Linger(Duration linger, NodeReaper reaper, LongSupplier currentSession, Consumer<LockEntry> retire) {
		this.nanos = linger.toNanos();
		this.reaper = reaper;
		this.currentSession = currentSession;
		this.retire = retire;
		this.timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "zk-lock-linger");
			thread.setDaemon(true);
			return thread;
		});
		// No thread stays while no node lingers; none runs once the registry has closed
		this.timer.setKeepAliveTime(1, TimeUnit.SECONDS);
		this.timer.allowCoreThreadTimeOut(true);
		this.timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	long nanos() {
		return this.nanos;
	}

	long currentSession() {
		return this.currentSession.getAsLong();
	}

	/**
	 * Delete a node whose linger ended; returns at once, as a release does.
	 */
	void delete(Lease lease) {
		this.reaper.delete(lease.nodePath());
	}

	/**
	 * Check on {@code entry} after {@code delayNanos}.
	 */
	void schedule(LockEntry entry, long delayNanos) {
		this.timer.schedule(entry::lingerTimerFired, delayNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * The entry's kept node went: let the entry leave its table if nobody uses it.
	 */
	void retire(LockEntry entry) {
		this.retire.accept(entry);
	}

	void close() {
		this.timer.shutdown();
	}

}
