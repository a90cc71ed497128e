package dev.zklock.template;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockContext;

import org.springframework.core.NamedThreadLocal;

/**
 * Keeps the {@link LockContext} of the lock the current thread holds for an invocation,
 * as Spring's {@code LocaleContextHolder} keeps a locale: set by {@link ZkLockTemplate}
 * around the work it runs. Applications read it through {@link LockContext#current()}.
 *
 * @author zk-lock
 */
public final class LockContextHolder {

	private static final ThreadLocal<@Nullable LockContext> current = new NamedThreadLocal<>("zk-lock context");

	private LockContextHolder() {
	}

	/**
	 * Return the context of the innermost lock this thread holds for an invocation.
	 * @return the context, or {@code null} if none
	 */
	public static @Nullable LockContext get() {
		return current.get();
	}

	/**
	 * Run work with a context, then restore the previous one: contexts nest as reentrant
	 * calls do.
	 */
	static <T extends @Nullable Object, E extends Throwable> T runWith(LockContext context, LockedTask<T, E> task)
			throws E {
		LockContext previous = current.get();
		current.set(context);
		try {
			return task.run();
		}
		finally {
			if (previous != null) {
				current.set(previous);
			}
			else {
				current.remove();
			}
		}
	}

}
