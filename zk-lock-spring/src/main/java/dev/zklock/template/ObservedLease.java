package dev.zklock.template;

import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLease;

/**
 * A lease from {@link ZkLockTemplate#acquireLease} whose hold is observed until it is
 * released, and which knows its context.
 */
final class ObservedLease implements ZkLease {

	private final ZkLease lease;

	private final Hold hold;

	private final LockContext context;

	private final AtomicBoolean released = new AtomicBoolean();

	private volatile @Nullable WorkStopper stopper;

	ObservedLease(ZkLease lease, Hold hold, LockContext context) {
		this.lease = lease;
		this.hold = hold;
		this.context = context;
	}

	LockContext context() {
		return this.context;
	}

	/**
	 * Run {@code stop} once if the lease is lost before it is released, as its hold's
	 * definition says.
	 */
	void stopOnLost(Runnable stop) {
		this.stopper = this.hold.stopOnLost(this.lease, stop);
		if (this.released.get()) {
			this.hold.unwatch(this.stopper);
		}
	}

	@Override
	public String key() {
		return this.lease.key();
	}

	@Override
	public String path() {
		return this.lease.path();
	}

	@Override
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	@Override
	public LeaseState state() {
		return this.lease.state();
	}

	@Override
	public @Nullable String lostBecause() {
		return this.lease.lostBecause();
	}

	@Override
	public GuardedTransaction guardedTransaction() {
		return this.lease.guardedTransaction();
	}

	/**
	 * Release the lease, or with a minimum hold, have it released once that has passed (a
	 * lost lease is then logged, as nobody is left to throw to).
	 */
	@Override
	public void release() {
		if (!this.released.compareAndSet(false, true)) {
			return;
		}
		this.hold.unwatch(this.stopper);
		if (this.hold.definition().holdAtLeast() != null) {
			this.hold.endLater(this.lease);
			return;
		}
		this.hold.releaseLease(this.lease);
	}

	/**
	 * Release at once, whatever the minimum hold: the lease's work never started.
	 */
	void releaseNow() {
		if (this.released.compareAndSet(false, true)) {
			this.hold.unwatch(this.stopper);
			this.hold.releaseLease(this.lease);
		}
	}

	@Override
	public String toString() {
		return this.lease.toString();
	}

}
