package dev.zklock.template;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Tracks the {@link Hold holds} of one {@link ZkLockTemplate} (for the names of the keys
 * held), and gives them what they share: the registry, the scheduler of releases deferred
 * by a minimum hold, and the watch that stops work whose lease is lost.
 */
final class HoldTracker {

	final ZkLockRegistry registry;

	final MinimumHoldScheduler minimumHolds = new MinimumHoldScheduler("ZkLockTemplate");

	final LostLeaseWatch lostLeases;

	/**
	 * The observed holds now. A set of holds, not a map by key: every hold of a contended
	 * key would otherwise write the same map bin under its lock, once taking the key and
	 * once giving it up, and the next holder would queue there behind the one before,
	 * each hand-off a second wait.
	 */
	private final Set<Hold> current = ConcurrentHashMap.newKeySet();

	/** Orders the holds, so that a key held several times is named by its oldest. */
	private final AtomicLong sequence = new AtomicLong();

	HoldTracker(ZkLockRegistry registry) {
		this.registry = registry;
		this.lostLeases = new LostLeaseWatch(registry);
	}

	/**
	 * Return the place of a new hold in the order of holds.
	 */
	long nextSequence() {
		return this.sequence.incrementAndGet();
	}

	/**
	 * Count an observed hold among the current ones.
	 */
	void add(Hold hold) {
		this.current.add(hold);
	}

	void remove(Hold hold) {
		this.current.remove(hold);
	}

	/**
	 * Return the name of each key held, as its oldest hold gives it.
	 */
	Map<String, String> holderNames() {
		Map<String, Hold> oldest = new HashMap<>();
		for (Hold hold : this.current) {
			for (String key : hold.keys()) {
				oldest.merge(key, hold, (one, other) -> (one.sequence() < other.sequence()) ? one : other);
			}
		}
		Map<String, String> names = new TreeMap<>();
		oldest.forEach((key, hold) -> names.put(key, hold.name()));
		return names;
	}

}
