package dev.zklock.core.internal.semaphore;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLease;
import dev.zklock.core.internal.GuardedMulti;
import dev.zklock.core.internal.HeldNode;

/**
 * A lease on one permit of a semaphore: its own node among the semaphore's leases,
 * released by any thread, once.
 */
final class SemaphoreLease implements ZkLease {

	private final SemaphoreEngine engine;

	private final SemaphoreEntry entry;

	private final HeldNode lease;

	private final AtomicBoolean released = new AtomicBoolean();

	SemaphoreLease(SemaphoreEngine engine, SemaphoreEntry entry, HeldNode lease) {
		this.engine = engine;
		this.entry = entry;
		this.lease = lease;
	}

	@Override
	public String key() {
		return this.entry.key();
	}

	@Override
	public String path() {
		return this.entry.path();
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
		return this.lease.lostBecauseIfLost();
	}

	/**
	 * The permit's own node among the semaphore's leases is checked: while it exists,
	 * this JVM's permit counts. Any thread may use it until the lease is released.
	 */
	@Override
	public GuardedTransaction guardedTransaction() {
		return this.engine.engine().guardedTransaction(() -> {
			if (this.released.get()) {
				throw new IllegalStateException("Permit of '" + key() + "' was released");
			}
			return List.of(new GuardedMulti.Guard(key(), path(), this.lease));
		});
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			this.engine.release(this.entry, this.lease);
		}
	}

	@Override
	public String toString() {
		return "ZkLease[" + this.lease.nodePath() + "]";
	}

}
