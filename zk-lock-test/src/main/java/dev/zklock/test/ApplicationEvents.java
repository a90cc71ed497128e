package dev.zklock.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.state.ConnectionState;

import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLockListener;

/**
 * What the application's registry tells the kit: its connection states, the keys it
 * acquired and lost; and the hooks waiting for its acquisitions, run on the acquiring
 * thread.
 */
final class ApplicationEvents implements ZkLockListener {

	/** The hooks not fired yet. */
	private final Queue<Hook> hooks = new ConcurrentLinkedQueue<>();

	/** Every hook of the test, fired or not. */
	private final List<Hook> all = new CopyOnWriteArrayList<>();

	private final List<ConnectionState> states = new ArrayList<>();

	private final Map<String, AtomicLong> acquisitions = new ConcurrentHashMap<>();

	private final Map<String, AtomicLong> losses = new ConcurrentHashMap<>();

	@Override
	public void acquired(String key, String path) {
		this.acquisitions.computeIfAbsent(key, (k) -> new AtomicLong()).incrementAndGet();
		for (Hook hook : this.hooks) {
			if (hook.key().equals(key) && this.hooks.remove(hook)) {
				hook.fire();
				return;
			}
		}
	}

	@Override
	public void leaseStateChanged(String key, String path, LeaseState state) {
		if (state == LeaseState.LOST) {
			this.losses.computeIfAbsent(key, (k) -> new AtomicLong()).incrementAndGet();
		}
	}

	@Override
	public synchronized void connectionStateChanged(ConnectionState state) {
		this.states.add(state);
	}

	void add(Hook hook) {
		this.all.add(hook);
		this.hooks.add(hook);
	}

	synchronized long stateChanges() {
		return this.states.size();
	}

	/** Whether one of the states was told after the first {@code since}. */
	synchronized boolean anySince(long since, ConnectionState... states) {
		for (int i = (int) since; i < this.states.size(); i++) {
			for (ConnectionState state : states) {
				if (this.states.get(i) == state) {
					return true;
				}
			}
		}
		return false;
	}

	synchronized long sessionLosses() {
		return this.states.stream().filter((state) -> state == ConnectionState.LOST).count();
	}

	long acquisitions(String key) {
		AtomicLong count = this.acquisitions.get(key);
		return (count != null) ? count.get() : 0;
	}

	long losses(String key) {
		AtomicLong count = this.losses.get(key);
		return (count != null) ? count.get() : 0;
	}

	/** Why the test fails for its hooks: those that failed, those that never fired. */
	List<Throwable> hookFailures() {
		List<Throwable> failures = new ArrayList<>();
		for (Hook hook : this.all) {
			Throwable failure = hook.failure();
			if (failure != null) {
				failures.add(failure);
			}
		}
		return failures;
	}

	synchronized void clear() {
		this.hooks.clear();
		this.all.clear();
		this.states.clear();
		this.acquisitions.clear();
		this.losses.clear();
	}

}
