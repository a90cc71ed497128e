package dev.zklock.template;

import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import dev.zklock.annotation.LockContext;
import dev.zklock.core.LeaseState;

/**
 * The {@link LockContext} of one hold: the keys are known when it begins, tokens and state are
 * read when asked, from the hold itself, so that creating one costs almost nothing.
 */
final class HeldLockContext implements LockContext {

	private final String name;

	private final List<String> keys;

	private final ToLongFunction<String> tokens;

	private final Supplier<LeaseState> state;

	HeldLockContext(String name, List<String> keys, ToLongFunction<String> tokens, Supplier<LeaseState> state) {
		this.name = name;
		this.keys = keys;
		this.tokens = tokens;
		this.state = state;
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
			throw new IllegalStateException("Lock '" + this.name + "' holds several keys " + this.keys
					+ "; read them with keys()");
		}
		return this.keys.get(0);
	}

	@Override
	public long fencingToken() {
		if (this.keys.size() != 1) {
			throw new IllegalStateException("Lock '" + this.name + "' holds several keys " + this.keys
					+ ", each with its own fencing token; read them with fencingToken(key)");
		}
		return this.tokens.applyAsLong(this.keys.get(0));
	}

	@Override
	public long fencingToken(String key) {
		if (!this.keys.contains(key)) {
			throw new IllegalArgumentException("Lock '" + this.name + "' holds " + this.keys + ", not '" + key + "'");
		}
		return this.tokens.applyAsLong(key);
	}

	@Override
	public LeaseState leaseState() {
		return this.state.get();
	}

	@Override
	public String toString() {
		return "LockContext[name=" + this.name + ", keys=" + this.keys + "]";
	}

}
