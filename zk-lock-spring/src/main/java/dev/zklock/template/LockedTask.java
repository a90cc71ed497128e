package dev.zklock.template;

import org.jspecify.annotations.Nullable;

/**
 * Work to run while holding a lock.
 *
 * @param <T> the result type
 * @param <E> what the work may throw
 * @author zk-lock
 */
@FunctionalInterface
public interface LockedTask<T extends @Nullable Object, E extends Throwable> {

	/**
	 * Run the work.
	 * @return the result
	 * @throws E on failure
	 */
	T run() throws E;

}
