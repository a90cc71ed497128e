package dev.zklock.core;

import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * This JVM's state for one semaphore path: the leases it holds, each its own node, as
 * Curator counts them, and how many of its callers wait for one.
 */
final class SemaphoreEntry extends TableEntry {

	private final Set<Lease> leases = ConcurrentHashMap.newKeySet();

	private final AtomicInteger waiting = new AtomicInteger();

	private volatile int permits;

	private volatile @Nullable Instant heldSince;

	private volatile boolean closed;

	SemaphoreEntry(String key, String path) {
		super(key, path);
	}

	void waiting(int delta, int permits) {
		this.waiting.addAndGet(delta);
		this.permits = permits;
	}

	void acquired(Lease lease) {
		if (this.leases.isEmpty()) {
			this.heldSince = Instant.now();
		}
		this.leases.add(lease);
	}

	void released(Lease lease) {
		this.leases.remove(lease);
		if (this.leases.isEmpty()) {
			this.heldSince = null;
		}
	}

	@Override
	void noteRemoteWaiter() {
		// Leases are never handed on locally: nothing to make way for
	}

	@Override
	boolean isClosed() {
		return this.closed;
	}

	@Override
	boolean isIdle() {
		return this.leases.isEmpty() && this.waiting.get() == 0;
	}

	@Override
	void close() {
		this.closed = true;
	}

	@Override
	boolean isHeld() {
		return !this.leases.isEmpty();
	}

	@Override
	int waitingCount() {
		return this.waiting.get();
	}

	@Override
	void forEachLease(Consumer<Lease> action) {
		this.leases.forEach(action);
	}

	@Override
	LocalLockInfo info() {
		Lease first = this.leases.stream().findFirst().orElse(null);
		return new LocalLockInfo(key(), path(), isHeld(), null, this.heldSince, this.waiting.get(), first,
				LockKind.SEMAPHORE, this.leases.size(), this.permits, false);
	}

}
