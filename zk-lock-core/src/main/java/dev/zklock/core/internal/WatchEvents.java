package dev.zklock.core.internal;

import java.util.function.Supplier;

/**
 * What the one watcher hears, to whom it goes: child events to the remote waiters, node
 * events to the revocations (and to the remote waiters, for a lock path gone).
 */
final class WatchEvents implements LockWatches.Events {

	private final RemoteWaiters remoteWaiters;

	/** Supplied, not given: the revocations are made with the watches this routes for. */
	private final Supplier<Revocations> revocations;

	WatchEvents(RemoteWaiters remoteWaiters, Supplier<Revocations> revocations) {
		this.remoteWaiters = remoteWaiters;
		this.revocations = revocations;
	}

	@Override
	public void childrenChanged(String serverPath) {
		this.remoteWaiters.childrenChanged(serverPath);
	}

	@Override
	public void childWatchRemoved(String serverPath) {
		this.remoteWaiters.childWatchRemoved(serverPath);
	}

	@Override
	public void nodeChanged(String serverPath, boolean deleted) {
		this.revocations.get().changed(serverPath, deleted);
	}

	@Override
	public void connectionChanged() {
		this.revocations.get().reconnected();
	}

	@Override
	public void connectionDown() {
		this.remoteWaiters.connectionDown();
	}

}
