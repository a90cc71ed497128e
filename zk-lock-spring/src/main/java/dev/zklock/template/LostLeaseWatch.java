package dev.zklock.template;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Tells the {@link WorkStopper}s of the holds whose work stops when their lease is lost
 * ({@link dev.zklock.annotation.OnLost#INTERRUPT}) that a lease of one of their keys was
 * lost. Listens to the registry from the first such hold on. A set of stoppers rather
 * than a map by key: a loss is rare, and a contended key's holds would otherwise queue on
 * one map bin at each start and end.
 */
final class LostLeaseWatch implements ZkLockListener {

	private final ZkLockRegistry registry;

	private final AtomicBoolean listening = new AtomicBoolean();

	private final Set<WorkStopper> stoppers = ConcurrentHashMap.newKeySet();

	LostLeaseWatch(ZkLockRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Tell a stopper of the losses of its keys until it is {@link #forget forgotten}.
	 */
	void watch(WorkStopper stopper) {
		if (!this.listening.get() && this.listening.compareAndSet(false, true)) {
			this.registry.addListener(this);
		}
		this.stoppers.add(stopper);
	}

	void forget(WorkStopper stopper) {
		this.stoppers.remove(stopper);
	}

	@Override
	public void leaseStateChanged(String key, String path, LeaseState state) {
		if (state != LeaseState.LOST) {
			return;
		}
		for (WorkStopper stopper : this.stoppers) {
			if (stopper.keys().contains(key)) {
				stopper.leaseLost();
			}
		}
	}

	/**
	 * Stop listening to the registry.
	 */
	void close() {
		if (this.listening.get()) {
			this.registry.removeListener(this);
		}
	}

}
