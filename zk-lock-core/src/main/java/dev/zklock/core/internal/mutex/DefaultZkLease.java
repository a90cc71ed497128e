package dev.zklock.core.internal.mutex;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLease;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.GuardedMulti;

/**
 * The {@link ZkLease} handed out by
 * {@link dev.zklock.core.registry.ZkLockRegistry#acquireLease}: the holder object itself
 * stands in the key's local queue, so no thread is tied to it.
 */
public final class DefaultZkLease implements ZkLease {

	private final MutexEngine mutex;

	private final String key;

	private final String path;

	private final AtomicBoolean released = new AtomicBoolean();

	private @Nullable MutexEntry entry;

	private @Nullable HeldNode node;

	public DefaultZkLease(MutexEngine mutex, String key, String path) {
		this.mutex = mutex;
		this.key = key;
		this.path = path;
	}

	public void acquired(@Nullable MutexEntry entry) {
		this.entry = entry;
		this.node = (entry != null) ? entry.node() : null;
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
	public long fencingToken() {
		return requireHeldNode().fencingToken();
	}

	/**
	 * The path of the node that holds the lease.
	 */
	public String heldNodePath() {
		return requireHeldNode().nodePath();
	}

	@Override
	public LeaseState state() {
		return requireHeldNode().state();
	}

	@Override
	public @Nullable String lostBecause() {
		return requireHeldNode().lostBecauseIfLost();
	}

	/**
	 * Any thread may use it until the lease is released.
	 */
	@Override
	public GuardedTransaction guardedTransaction() {
		return this.mutex.engine().guardedTransaction(() -> {
			if (this.released.get()) {
				throw new IllegalStateException("Lease on '" + this.key + "' was released");
			}
			return List.of(new GuardedMulti.Guard(this.key, this.path, requireHeldNode()));
		});
	}

	/**
	 * Tell {@code listener} when someone asks for this lease back; arms a watch on the
	 * node, through which its delete by another client is heard too (the lease becomes
	 * {@link LeaseState#LOST}). Forgotten when the lease is released, as a thread's
	 * listeners are when its hold ends.
	 */
	public void onRevocationRequested(Runnable listener) {
		this.mutex.engine().onRevocationRequested(requireHeldNode(), Holder.handle(this), listener);
	}

	@Override
	public void release() {
		MutexEntry held = this.entry;
		if (held != null && this.released.compareAndSet(false, true)) {
			this.mutex.release(held, Holder.handle(this));
		}
	}

	@Override
	public String toString() {
		return "ZkLease[" + this.path + "]";
	}

	private HeldNode requireHeldNode() {
		HeldNode current = this.node;
		if (current == null) {
			throw new IllegalStateException("Lease on '" + this.key + "' was not acquired");
		}
		return current;
	}

}
