package dev.zklock.core.internal.semaphore;

import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.TableEntry;

/**
 * This JVM's state for one semaphore path: the leases it holds, each its own node, as
 * Curator counts them, how many of its callers wait for one, and the guard under which
 * the one caller that holds it may add a lease.
 */
final class SemaphoreEntry extends TableEntry {

	private final Set<HeldNode> leases = ConcurrentHashMap.newKeySet();

	private final AtomicInteger waiting = new AtomicInteger();

	private volatile int permits;

	private volatile @Nullable Instant heldSince;

	private volatile boolean closed;

	/**
	 * The guard this JVM holds while one of its callers adds and waits on a lease; null
	 * while none does. Only the caller holding the guard (one at a time: they queue for
	 * it locally) sets and reads it.
	 */
	private volatile @Nullable HeldNode guard;

	SemaphoreEntry(String key, String path) {
		super(key, path);
	}

	/**
	 * Note the guard the calling thread holds now, or that it holds none any more.
	 */
	void guardedBy(@Nullable HeldNode guard) {
		this.guard = guard;
	}

	/**
	 * A lease is added, and held, only on the session of the guard held: Curator's
	 * {@code InterProcessSemaphoreV2} adds its lease while holding the guard and takes a
	 * permit only if all the leases there fit in the permits, so a lease added while
	 * another client holds the guard counts against that client. A lease added after the
	 * guard's session ended (on the client's new session) could come behind such a
	 * client's, and each would wait for the other while a permit is free.
	 */
	@Override
	public void checkSession(long session) throws AcquireFailure {
		HeldNode held = this.guard;
		if (held == null || held.sessionId() != session || held.state() == LeaseState.LOST) {
			throw new GuardLost();
		}
	}

	void waiting(int delta, int permits) {
		this.waiting.addAndGet(delta);
		this.permits = permits;
	}

	void acquired(HeldNode lease) {
		if (this.leases.isEmpty()) {
			this.heldSince = Instant.now();
		}
		this.leases.add(lease);
	}

	void released(HeldNode lease) {
		this.leases.remove(lease);
		if (this.leases.isEmpty()) {
			this.heldSince = null;
		}
	}

	@Override
	public void noteRemoteWaiter() {
		// Leases are never handed on locally: nothing to make way for
	}

	@Override
	public boolean isClosed() {
		return this.closed;
	}

	@Override
	public boolean isIdle() {
		return this.leases.isEmpty() && this.waiting.get() == 0;
	}

	@Override
	public void close() {
		this.closed = true;
	}

	@Override
	public boolean isHeld() {
		return !this.leases.isEmpty();
	}

	@Override
	public void forEachHeldNode(Consumer<HeldNode> action) {
		this.leases.forEach(action);
	}

	/**
	 * The semaphore's guard was lost with its session while a lease was acquired under
	 * it: the caller takes the guard again before it adds another lease, or, if its time
	 * is up, fails with this.
	 */
	static final class GuardLost extends AcquireFailure {

		private static final long serialVersionUID = 1L;

		GuardLost() {
			super(LockAcquisitionException.Reason.NOT_CONNECTED,
					"the session ended while a lease waited, and the semaphore's guard must be taken again", null);
		}

	}

	@Override
	public LocalLockInfo info() {
		HeldNode first = this.leases.stream().findFirst().orElse(null);
		return snapshot(isHeld(), null, this.heldSince, first, LockKind.SEMAPHORE, this.leases.size(), this.permits,
				false);
	}

}
