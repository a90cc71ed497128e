package dev.zklock.core.internal.mutex;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLease;
import dev.zklock.core.internal.GuardedMulti;

/**
 * The leases of several keys, released together.
 */
final class MultiKeyLease implements ZkLease {

	private final List<ZkLease> leases;

	MultiKeyLease(List<ZkLease> leases) {
		this.leases = List.copyOf(leases);
	}

	@Override
	public String key() {
		return this.leases.stream().map(ZkLease::key).toList().toString();
	}

	@Override
	public String path() {
		return this.leases.stream().map(ZkLease::path).toList().toString();
	}

	/**
	 * Not defined for several keys (see {@link MultiKeyLock#fencingToken()}).
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public long fencingToken() {
		throw new UnsupportedOperationException("A lease on several keys " + key() + " has one fencing token per key");
	}

	@Override
	public LeaseState state() {
		LeaseState worst = LeaseState.HELD;
		for (ZkLease lease : this.leases) {
			worst = worst.lessCertain(lease.state());
		}
		return worst;
	}

	@Override
	public @Nullable String lostBecause() {
		for (ZkLease lease : this.leases) {
			String because = lease.lostBecause();
			if (because != null) {
				return because;
			}
		}
		return null;
	}

	/**
	 * Every key's node is checked, in lock order, in one multi.
	 */
	@Override
	public GuardedTransaction guardedTransaction() {
		return GuardedMulti.allOf(this.leases.stream().map(ZkLease::guardedTransaction).toList());
	}

	@Override
	public void release() {
		MultiKeyLock.releaseInReverse(this.leases, ZkLease::release);
	}

	@Override
	public String toString() {
		return "ZkLease" + path();
	}

}
