package dev.zklock.template;

import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.LockLostException.WorkOutcome;

/**
 * Base for the {@link LockContext} of one hold: the keys are known when it begins, tokens
 * and state are read when asked, from the hold itself, so that creating one costs almost
 * nothing. A {@link Hold} on the calling thread is its own context; a lease's is made
 * with the functions that read it ({@link #of}).
 */
abstract class AbstractLockContext implements LockContext {

	private final String name;

	private final List<String> keys;

	AbstractLockContext(String name, List<String> keys) {
		this.name = name;
		this.keys = keys;
	}

	static AbstractLockContext of(String name, List<String> keys, ToLongFunction<String> tokens,
			Supplier<LeaseState> state, UnaryOperator<String> paths) {
		return new AbstractLockContext(name, keys) {

			@Override
			String path(String key) {
				return paths.apply(key);
			}

			@Override
			long token(String key) {
				return tokens.applyAsLong(key);
			}

			@Override
			LeaseState state() {
				return state.get();
			}

		};
	}

	/**
	 * Read the fencing token of one of the keys.
	 */
	abstract long token(String key);

	/**
	 * Read the least certain state of the keys' leases.
	 */
	abstract LeaseState state();

	/**
	 * Read the state of one key's lease; the least certain of all unless known apart.
	 */
	LeaseState state(String key) {
		return state();
	}

	/**
	 * Return the ZooKeeper path of one of the keys' locks.
	 */
	abstract String path(String key);

	/**
	 * Read what made one key's lease lost, if known.
	 */
	@Nullable String lostBecause(String key) {
		return null;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public List<String> keys() {
		return this.keys;
	}

	@Override
	public String key() {
		if (this.keys.size() != 1) {
			throw new IllegalStateException(
					"Lock '" + this.name + "' holds several keys " + this.keys + "; read them with keys()");
		}
		return this.keys.get(0);
	}

	@Override
	public long fencingToken() {
		if (this.keys.size() != 1) {
			throw new IllegalStateException("Lock '" + this.name + "' holds several keys " + this.keys
					+ ", each with its own fencing token; read them with fencingToken(key)");
		}
		return token(this.keys.get(0));
	}

	@Override
	public long fencingToken(String key) {
		if (!this.keys.contains(key)) {
			throw new IllegalArgumentException("Lock '" + this.name + "' holds " + this.keys + ", not '" + key + "'");
		}
		return token(key);
	}

	@Override
	public LeaseState leaseState() {
		return state();
	}

	@Override
	public void checkHeld() {
		LeaseState state = state();
		if (state == LeaseState.HELD) {
			return;
		}
		String key = this.keys.get(0);
		for (String candidate : this.keys) {
			if (state(candidate) == state) {
				key = candidate;
				break;
			}
		}
		if (state == LeaseState.LOST) {
			String because = lostBecause(key);
			// The check ends the work unless the work catches it
			throw new LockLostException(key, path(key), token(key),
					(because != null) ? because : "the ZooKeeper session expired or another client deleted its node",
					WorkOutcome.STOPPED);
		}
		throw new LeaseUncertainException(key, path(key), token(key));
	}

	/**
	 * Only a revocable hold on this thread is told of requests.
	 */
	@Override
	public boolean isRevocationRequested() {
		return false;
	}

	/**
	 * Only a hold on this thread guards transactions; a lease's context reads no more
	 * than its tokens and state.
	 */
	@Override
	public GuardedTransaction guardedTransaction() {
		throw new UnsupportedOperationException("The context of lock '" + this.name + "' on " + this.keys
				+ " belongs to a lease: use the lease's own guardedTransaction()");
	}

	@Override
	public String toString() {
		return "LockContext[name=" + this.name + ", keys=" + this.keys + "]";
	}

}
