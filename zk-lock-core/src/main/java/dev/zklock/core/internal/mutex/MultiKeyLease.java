package dev.zklock.core.internal.mutex;

import java.util.List;
import java.util.function.Function;

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
		return leastCertain(this.leases, ZkLease::state);
	}

	@Override
	public @Nullable String lostBecause() {
		return firstLostBecause(this.leases, ZkLease::lostBecause);
	}

	/**
	 * The least certain of the keys' states: {@code LOST} if any is lost, else
	 * {@code UNCERTAIN} if any is uncertain, else {@code HELD}.
	 */
	static <T> LeaseState leastCertain(List<T> keys, Function<T, LeaseState> state) {
		LeaseState worst = LeaseState.HELD;
		for (T key : keys) {
			worst = worst.lessCertain(state.apply(key));
		}
		return worst;
	}

	/**
	 * What made the first lost key's hold lost, in lock order.
	 */
	static <T> @Nullable String firstLostBecause(List<T> keys, Function<T, @Nullable String> lostBecause) {
		for (T key : keys) {
			String because = lostBecause.apply(key);
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
