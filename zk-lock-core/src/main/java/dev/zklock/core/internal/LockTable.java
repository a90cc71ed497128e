package dev.zklock.core.internal;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

/**
 * The entries of one recipe by lock path: an entry exists only while someone holds or
 * waits for its path, and leaves as soon as the last of them is done.
 *
 * @param <E> the entry type
 */
public final class LockTable<E extends TableEntry> {

	private final ConcurrentHashMap<String, E> entries = new ConcurrentHashMap<>();

	private final BiFunction<String, String, E> factory;

	private final Runnable retired;

	/**
	 * @param factory makes an entry from a key and its path
	 * @param retired told after an entry left the table
	 */
	LockTable(BiFunction<String, String, E> factory, Runnable retired) {
		this.factory = factory;
		this.retired = retired;
	}

	public @Nullable E get(String path) {
		return this.entries.get(path);
	}

	public Collection<E> values() {
		return this.entries.values();
	}

	boolean isEmpty() {
		return this.entries.isEmpty();
	}

	int size() {
		return this.entries.size();
	}

	/**
	 * Find or create the path's entry and count us in, without locking the map: many
	 * threads arriving for one key must not queue on a map bin before they queue on the
	 * lock.
	 */
	E retain(String key, String path) {
		while (true) {
			E entry = this.entries.get(path);
			if (entry == null) {
				E created = this.factory.apply(key, path);
				entry = this.entries.putIfAbsent(path, created);
				if (entry == null) {
					return created;
				}
			}
			if (entry.tryRetain()) {
				return entry;
			}
			// Retired by its last user a moment ago: help remove it and start over
			this.entries.remove(path, entry);
		}
	}

	/**
	 * Count us out; the last one out of an idle entry removes it. A held entry always
	 * counts its holder, so it is never removed.
	 */
	public void release(E entry) {
		if (entry.releaseAndRetire()) {
			remove(entry);
		}
	}

	/**
	 * Remove an entry that became idle without a user (its lingering node went), unless
	 * someone counted in meanwhile.
	 */
	public void retireIfIdle(E entry) {
		if (entry.tryRetire()) {
			remove(entry);
		}
	}

	private void remove(E entry) {
		this.entries.remove(entry.path(), entry);
		this.retired.run();
	}

}
