package dev.zklock.template;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.LockLostException.WorkOutcome;
import dev.zklock.core.ZkLease;

/**
 * One hold of some keys by a {@link ZkLockTemplate}: the work's context while it runs,
 * what stops the work (a revocation request, a lost lease) and the hold's end, now or,
 * with a minimum hold, once that has passed.
 */
final class Hold extends AbstractLockContext {

	private static final Log logger = LogFactory.getLog(Hold.class);

	private final HoldTracker tracker;

	private final LockDefinition definition;

	private final RecipeLock recipeLock;

	private final List<String> keys;

	private final @Nullable Observation held;

	private final long acquiredAt = System.nanoTime();

	private final long sequence;

	/** Whether the lease was lost when the hold ended, for the observation's outcome. */
	private volatile boolean lost;

	/**
	 * @param held the started hold observation, or {@code null} for a reentrant hold,
	 * which is neither observed nor counted as a holder
	 */
	Hold(HoldTracker tracker, LockDefinition definition, RecipeLock recipeLock, Collection<String> keys,
			@Nullable Observation held) {
		this(tracker, definition, recipeLock, List.copyOf(keys), held);
	}

	private Hold(HoldTracker tracker, LockDefinition definition, RecipeLock recipeLock, List<String> keys,
			@Nullable Observation held) {
		super(definition.name(), keys);
		this.tracker = tracker;
		this.definition = definition;
		this.recipeLock = recipeLock;
		this.keys = keys;
		this.held = held;
		// A key held already by an outer hold (or an earlier reader) keeps that name
		this.sequence = (held != null) ? tracker.nextSequence() : 0;
		if (held != null) {
			tracker.add(this);
		}
	}

	LockDefinition definition() {
		return this.definition;
	}

	long sequence() {
		return this.sequence;
	}

	/**
	 * Run the work on this thread, which holds the keys, and end the hold.
	 */
	<T extends @Nullable Object, E extends Throwable> T run(LockedTask<T, E> task) throws E {
		WorkStopper stopper = stopperOnThisThread();
		WorkStopper.Cause stopped = null;
		T result;
		try {
			try {
				result = LockContextHolder.runWith(this, task);
			}
			finally {
				if (stopper != null) {
					this.tracker.lostLeases.forget(stopper);
					stopped = stopper.disarm();
				}
			}
		}
		catch (Throwable ex) {
			end(ex, stopped == WorkStopper.Cause.LOST);
			throw ex;
		}
		end(null, stopped == WorkStopper.Cause.LOST);
		return result;
	}

	/**
	 * What interrupts this thread while it runs the work: a revocation request, if the
	 * hold is revocable; the loss of the lease, if it stops the work then.
	 */
	private @Nullable WorkStopper stopperOnThisThread() {
		boolean onLost = this.definition.stopsOnLost();
		if (!this.definition.revocable() && !onLost) {
			return null;
		}
		WorkStopper stopper = WorkStopper.interruptingCurrentThread(this.keys);
		if (this.definition.revocable()) {
			this.recipeLock.onRevocationRequested(stopper::revocationRequested);
		}
		if (onLost) {
			this.recipeLock.watchNodes();
			this.tracker.lostLeases.watch(stopper);
			// Lost before the watch began: nobody will tell it again
			if (this.recipeLock.leaseState() == LeaseState.LOST) {
				stopper.leaseLost();
			}
		}
		return stopper;
	}

	/**
	 * Have this JVM watch the nodes of a hold whose work stops when its lease is lost, so
	 * that a delete by another client is heard. Call while this thread holds the keys,
	 * before the hold becomes a lease.
	 */
	void watchNodesIfStopped() {
		if (this.definition.stopsOnLost()) {
			this.recipeLock.watchNodes();
		}
	}

	/**
	 * Stop the work of this hold's lease when the lease is lost, if the definition says
	 * so.
	 * @param stop what stops the work, run once, off the ZooKeeper event thread
	 * @return the stopper to {@link #unwatch} when the work ends, or {@code null}
	 */
	@Nullable WorkStopper stopOnLost(ZkLease lease, Runnable stop) {
		if (!this.definition.stopsOnLost()) {
			return null;
		}
		WorkStopper stopper = WorkStopper.cancelling(this.keys, stop, () -> lease.state() == LeaseState.LOST);
		this.tracker.lostLeases.watch(stopper);
		stopper.leaseLost();
		return stopper;
	}

	/**
	 * The work of a lease has ended: its loss stops nothing any more.
	 */
	void unwatch(@Nullable WorkStopper stopper) {
		if (stopper != null) {
			this.tracker.lostLeases.forget(stopper);
			stopper.disarm();
		}
	}

	@Override
	public boolean isRevocationRequested() {
		return this.definition.revocable() && this.recipeLock.isRevocationRequested();
	}

	@Override
	public GuardedTransaction guardedTransaction() {
		return this.recipeLock.guardedTransaction();
	}

	/**
	 * As this thread's context: tokens and state are read from its hold when asked.
	 */
	@Override
	long token(String key) {
		return this.recipeLock.fencingToken(key);
	}

	@Override
	LeaseState state() {
		return this.recipeLock.leaseState();
	}

	@Override
	LeaseState state(String key) {
		return this.recipeLock.leaseState(key);
	}

	@Override
	@Nullable String lostBecause(String key) {
		return this.recipeLock.lostBecause(key);
	}

	@Override
	String path(String key) {
		return this.tracker.registry.lockPath(key);
	}

	/**
	 * A context that outlives this thread's hold: the tokens are read now.
	 */
	LockContext snapshot() {
		Map<String, Long> tokens = new HashMap<>();
		for (String key : this.keys) {
			tokens.put(key, this.recipeLock.fencingToken(key));
		}
		return AbstractLockContext.of(this.definition.name(), this.keys, tokens::get, this.recipeLock::leaseState,
				this.tracker.registry::lockPath);
	}

	/**
	 * End this thread's hold: release it now, or hand it to a lease released once the
	 * minimum hold has passed.
	 */
	void end(@Nullable Throwable failure) {
		end(failure, false);
	}

	/**
	 * End this thread's hold.
	 * @param stoppedOnLost whether the work was interrupted as its lease was lost: the
	 * interrupt was this hold's own and must not outlive the work, and the release's
	 * {@link LockLostException} is then what the caller sees, with the work's failure in
	 * it
	 */
	private void end(@Nullable Throwable failure, boolean stoppedOnLost) {
		if (stoppedOnLost) {
			Thread.interrupted();
		}
		Duration minimum = this.definition.holdAtLeast();
		LeaseState state = (this.held != null || minimum != null) ? this.recipeLock.leaseState() : LeaseState.HELD;
		this.lost = (state == LeaseState.LOST);
		if (minimum == null || System.nanoTime() - this.acquiredAt >= minimum.toNanos() || this.lost) {
			if (stoppedOnLost) {
				releaseStopped(failure);
			}
			else {
				release(this.recipeLock, this, failure);
			}
			return;
		}
		ZkLease lease;
		try {
			lease = this.recipeLock.toLease();
		}
		catch (RuntimeException ex) {
			release(this.recipeLock, this, failure);
			if (failure != null) {
				// The work's own failure is what the caller must see
				failure.addSuppressed(ex);
				return;
			}
			throw ex;
		}
		endLater(lease);
	}

	private void releaseStopped(@Nullable Throwable failure) {
		try {
			this.recipeLock.release();
		}
		catch (LockLostException ex) {
			// The release found what stopped the work: say that the work was stopped
			String because = ex.getLostBecause();
			LockLostException stopped = (ex.getWorkOutcome() == WorkOutcome.COMPLETED && because != null)
					? new LockLostException(ex.getKey(), ex.getPath(), ex.getFencingToken(), because,
							WorkOutcome.STOPPED)
					: ex;
			if (failure != null) {
				stopped.addSuppressed(failure);
			}
			throw stopped;
		}
		catch (RuntimeException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
		finally {
			finished();
		}
	}

	/**
	 * The hold has ended: stop observing it, and forget it as its keys' holder.
	 */
	void finished() {
		if (this.held != null) {
			this.tracker.remove(this);
			LockObservations.stop(this.held, this.lost ? LockObservations.LOST : LockObservations.RELEASED);
		}
	}

	/**
	 * End the hold of a lease, from any thread: now, or once the minimum hold has passed.
	 */
	void endLater(ZkLease lease) {
		Duration minimum = this.definition.holdAtLeast();
		if (minimum == null) {
			releaseLater(lease);
			return;
		}
		if (!this.tracker.minimumHolds.deferRelease(this.acquiredAt + minimum.toNanos(), this.definition.name(),
				this.keys, () -> releaseLater(lease))) {
			releaseLater(lease);
		}
	}

	/**
	 * Release the lease of a hold at the end of asynchronous work, on whichever thread
	 * ended it: nobody is left to throw to, so a lost lease is logged (and counted by the
	 * registry's listeners).
	 */
	private void releaseLater(ZkLease lease) {
		try {
			releaseLease(lease);
		}
		catch (RuntimeException ex) {
			logger.warn("Releasing " + lease + " at the end of asynchronous work: " + ex.getMessage());
		}
	}

	/**
	 * Release the lease of this hold, noting whether it was lost.
	 */
	void releaseLease(ZkLease lease) {
		try {
			this.lost = lease.state() == LeaseState.LOST;
			lease.release();
		}
		finally {
			finished();
		}
	}

	/**
	 * Release a hold of this thread. A lost lease must not hide the work's own exception:
	 * it is attached to it instead.
	 */
	static void release(RecipeLock recipeLock, @Nullable Hold hold, @Nullable Throwable failure) {
		try {
			recipeLock.release();
		}
		catch (RuntimeException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
		finally {
			if (hold != null) {
				hold.finished();
			}
		}
	}

}
