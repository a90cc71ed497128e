package dev.zklock.core.internal.semaphore;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkSemaphore;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Interrupts;

/**
 * The {@link ZkSemaphore} handed out by
 * {@link dev.zklock.core.registry.ZkLockRegistry#obtainSemaphore(String, int)}: a key,
 * its path and its permits; the state lives in the engine's entry for the path, and only
 * while someone holds or waits.
 */
final class DefaultZkSemaphore implements ZkSemaphore {

	private final SemaphoreEngine engine;

	private final String key;

	private final String path;

	private final int permits;

	DefaultZkSemaphore(SemaphoreEngine engine, String key, String path, int permits) {
		this.engine = engine;
		this.key = key;
		this.path = path;
		this.permits = permits;
	}

	@Override
	public ZkLease acquire(Duration waitAtMost) {
		Deadline deadline = Deadline.after(waitAtMost);
		try {
			ZkLease lease = this.engine.acquire(this.key, this.path, this.permits, deadline, !waitAtMost.isZero(),
					Interrupts.interruptible());
			try {
				this.engine.tellAcquired(this.key, this.path);
			}
			catch (Error ex) {
				// A listener's own VirtualMachineError: no permit outlives the failed
				// call
				lease.release();
				throw ex;
			}
			return lease;
		}
		catch (AcquireFailure | InterruptedException ex) {
			throw AcquireFailure.toException(ex, this.key, this.path, deadline.elapsed());
		}
	}

	@Override
	public @Nullable ZkLease tryAcquire(Duration waitAtMost) {
		try {
			return acquire(waitAtMost);
		}
		catch (LockAcquisitionException ex) {
			if (ex.getReason().isBusy()) {
				return null;
			}
			throw ex;
		}
	}

	@Override
	public int availablePermits() {
		return this.engine.availablePermits(this.key, this.path, this.permits);
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String path() {
		return this.path;
	}

	@Override
	public String toString() {
		return "ZkSemaphore[" + this.path + ", " + this.permits + " permits]";
	}

}
