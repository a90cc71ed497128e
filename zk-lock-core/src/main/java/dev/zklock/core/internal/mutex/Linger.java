package dev.zklock.core.internal.mutex;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.internal.DaemonTimers;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Engine;

/**
 * What an exclusive lock's entry needs to keep its node after the last local holder
 * released it ({@link ZkLockOptions#linger()}): how long, the client's current session (a
 * kept node is reused only on the session that created it), the reaper that deletes the
 * node when the linger ends, the watch for a revocation request that ends it sooner, and
 * a timer.
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

	/**
	 * A kept node is renewed (deleted, and a new one taken with a fresh child list) after
	 * this long of reuse, however often it is reused: should a watch ever be lost to
	 * something the engine does not see (other code removing the client's watches, say),
	 * another participant waits no longer than this.
	 */
	static final Duration RENEW_AFTER = Duration.ofMinutes(1);

	private final long nanos;

	private final long renewAfterNanos;

	/**
	 * Tells the client's session, deletes the nodes, and arms, once per node, the watch
	 * for a revocation request on a kept node.
	 */
	private final Engine engine;

	/** Removes an entry whose node went from its table, if nobody else uses it. */
	private final MutexEngine mutex;

	private final ScheduledThreadPoolExecutor timer;

	Linger(Engine engine, MutexEngine mutex) {
		this.nanos = engine.linger().toNanos();
		this.renewAfterNanos = Math.max(this.nanos, RENEW_AFTER.toNanos());
		this.engine = engine;
		this.mutex = mutex;
		this.timer = DaemonTimers.idle("zk-lock-linger");
		// None runs once the registry has closed
		this.timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		this.timer.setRemoveOnCancelPolicy(true);
	}

	long nanos() {
		return this.nanos;
	}

	long renewAfterNanos() {
		return this.renewAfterNanos;
	}

	/**
	 * The client's session while it is connected, else 0: a kept node is reused only
	 * then.
	 */
	long sessionIfConnected() {
		return this.engine.sessionIfConnected();
	}

	/**
	 * A node started to linger: a revocation request must end the linger, so its data is
	 * watched from its first linger on (one read, not waited for).
	 */
	void watchRevocation(HeldNode kept) {
		this.engine.watchLingering(kept);
	}

	/**
	 * Delete a node whose linger ended; returns at once, as a release does.
	 */
	void delete(HeldNode node) {
		this.engine.deleteNode(node.nodePath());
	}

	/**
	 * Check on {@code node}'s linger after {@code delayNanos}.
	 */
	ScheduledFuture<?> schedule(EntryNode node, long delayNanos) {
		return this.timer.schedule(node::lingerTimerFired, delayNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * The entry's kept node went: let the entry leave its table if nobody uses it.
	 */
	void retire(MutexEntry entry) {
		this.mutex.retireIfIdle(entry);
	}

	void close() {
		this.timer.shutdown();
	}

}
