package dev.zklock.template;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockLostException;
import dev.zklock.core.LockLostException.WorkOutcome;
import dev.zklock.core.ZkLease;

/**
 * Stops the work of one hold, once, and only while the work runs: when revocation of the
 * hold is requested ({@link LockDefinition#revocable()}), or when its lease is lost
 * ({@link dev.zklock.annotation.OnLost#INTERRUPT}, told by {@link LostLeaseWatch}). A
 * request or a loss that comes after the work ended must not reach whatever runs next.
 */
final class WorkStopper {

	private static final Log logger = LogFactory.getLog(WorkStopper.class);

	/** Why the work was stopped. */
	enum Cause {

		REVOKED, LOST

	}

	private final List<String> keys;

	private final Runnable stop;

	/**
	 * Whether the hold's lease is lost, as any thread may ask: a loss is told by key, and
	 * may be another hold's of the same key.
	 */
	private final BooleanSupplier lost;

	private final ReentrantLock lock = new ReentrantLock();

	/** Guarded by lock. */
	private boolean armed = true;

	/** Guarded by lock. */
	private @Nullable Cause cause;

	private WorkStopper(List<String> keys, Runnable stop, BooleanSupplier lost) {
		this.keys = keys;
		this.stop = stop;
		this.lost = lost;
	}

	/**
	 * Stop the work by interrupting the current thread, which runs it. A lease held by
	 * the thread cannot be read from another, so a loss of one of the keys is taken as
	 * this hold's: the JVM holds a key through one node at a time, whose loss every
	 * holder of the key shares.
	 */
	static WorkStopper interruptingCurrentThread(List<String> keys) {
		Thread thread = Thread.currentThread();
		return new WorkStopper(keys, thread::interrupt, () -> true);
	}

	/**
	 * Stop the work with a callback that cancels it, run off the ZooKeeper event thread,
	 * as cancelling runs the work's own callbacks.
	 */
	static WorkStopper cancelling(List<String> keys, Runnable cancel, BooleanSupplier lost) {
		return new WorkStopper(keys, () -> CompletableFuture.runAsync(cancel), lost);
	}

	List<String> keys() {
		return this.keys;
	}

	void revocationRequested() {
		stop(Cause.REVOKED);
	}

	/**
	 * One of the keys' leases was lost: stop the work if it was this hold's.
	 */
	void leaseLost() {
		if (this.lost.getAsBoolean()) {
			stop(Cause.LOST);
		}
	}

	private void stop(Cause why) {
		this.lock.lock();
		try {
			if (!this.armed) {
				return;
			}
			this.armed = false;
			this.cause = why;
			this.stop.run();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The work has ended: stop nothing from now on.
	 * @return why the work was stopped, or {@code null} if it was not
	 */
	@Nullable Cause disarm() {
		this.lock.lock();
		try {
			this.armed = false;
			return this.cause;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stop a stage's work as its lease is lost: complete it with the loss, which its
	 * dependents and the caller see (a {@code CompletableFuture} the work completes later
	 * is completed already).
	 */
	static void completeWithLoss(CompletionStage<?> stage, ZkLease lease) {
		CompletableFuture<?> future;
		try {
			future = stage.toCompletableFuture();
		}
		catch (UnsupportedOperationException ex) {
			logger.warn("Cannot stop the work of " + lease + ", whose lease is lost: its stage " + stage
					+ " cannot be completed from outside");
			return;
		}
		future.completeExceptionally(lossOf(lease));
	}

	/**
	 * The exception that tells a lease's loss, saying what made it lost when the engine
	 * knows (its session expired, or another client deleted its node).
	 */
	static LockLostException lossOf(ZkLease lease) {
		String because = lease.lostBecause();
		if (because == null) {
			because = "the ZooKeeper session expired or another client deleted its node";
		}
		long token;
		try {
			token = lease.fencingToken();
		}
		catch (UnsupportedOperationException ex) {
			// A lease on several keys has a token per key, and none of its own
			return new LockLostException(lease.key(), lease.path(), 0,
					because + " (a lease on several keys has one fencing token per key, none of its own)",
					WorkOutcome.STOPPED);
		}
		return new LockLostException(lease.key(), lease.path(), token, because, WorkOutcome.STOPPED);
	}

}
