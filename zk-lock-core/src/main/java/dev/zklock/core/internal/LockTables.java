package dev.zklock.core.internal;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The entry tables of every recipe of a registry, in the order the recipes made them:
 * what the session tracker, the watches and the snapshots go through, whatever the
 * recipe. Each recipe keeps its own table's type; a key used with two recipes has an
 * entry in each of their tables, both on its path.
 */
public final class LockTables implements Iterable<TableEntry> {

	private final List<LockTable<?>> tables = new CopyOnWriteArrayList<>();

	private final Runnable retired;

	/**
	 * @param retired told after an entry left its table
	 */
	LockTables(Runnable retired) {
		this.retired = retired;
	}

	/**
	 * Make a recipe's table.
	 * @param factory makes an entry from a key and its path
	 */
	<E extends TableEntry> LockTable<E> add(BiFunction<String, String, E> factory) {
		LockTable<E> table = new LockTable<>(factory, this.retired);
		this.tables.add(table);
		return table;
	}

	/**
	 * Every entry of every recipe.
	 */
	@Override
	public Iterator<TableEntry> iterator() {
		return this.tables.stream().flatMap((table) -> table.values().stream().map(TableEntry.class::cast)).iterator();
	}

	/**
	 * Apply an action to every entry, a table after the other.
	 */
	void forEachEntry(Consumer<TableEntry> action) {
		this.tables.forEach((table) -> table.values().forEach(action));
	}

	/**
	 * Apply an action to each recipe's entry of a lock path, if it has one.
	 */
	void forPath(String path, Consumer<TableEntry> action) {
		for (LockTable<?> table : this.tables) {
			TableEntry entry = table.get(path);
			if (entry != null) {
				action.accept(entry);
			}
		}
	}

	boolean isEmpty() {
		return this.tables.stream().allMatch(LockTable::isEmpty);
	}

	public int size() {
		return this.tables.stream().mapToInt(LockTable::size).sum();
	}

}
