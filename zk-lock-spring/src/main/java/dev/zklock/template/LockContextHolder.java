package dev.zklock.template;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.NamedThreadLocal;

/**
 * Keeps the {@link LockContext} of the lock the current thread holds for an invocation,
 * as Spring's {@code LocaleContextHolder} keeps a locale: set by {@link ZkLockTemplate}
 * around the work it runs. Applications read it through {@link LockContext#current()}.
 *
 * @author zk-lock
 */
public final class LockContextHolder {

	/** The innermost context, linked to the ones it is nested in. */
	private static final ThreadLocal<@Nullable Nested> current = new NamedThreadLocal<>("zk-lock context");

	private LockContextHolder() {
	}

	/**
	 * Return the context of the innermost lock this thread holds for an invocation.
	 * @return the context, or {@code null} if none
	 */
	public static @Nullable LockContext get() {
		Nested nested = current.get();
		return (nested != null) ? nested.context : null;
	}

	/**
	 * Return every context of this thread, the innermost first: a thread that runs a
	 * locked method from another one holds both locks.
	 */
	static List<LockContext> all() {
		List<LockContext> all = new ArrayList<>(2);
		for (Nested nested = current.get(); nested != null; nested = nested.outer) {
			all.add(nested.context);
		}
		return all;
	}

	/**
	 * Run work with a context, then restore the previous one: contexts nest as reentrant
	 * calls do.
	 */
	static <T extends @Nullable Object, E extends Throwable> T runWith(LockContext context, LockedTask<T, E> task)
			throws E {
		Nested previous = current.get();
		current.set(new Nested(context, previous));
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

	private record Nested(LockContext context, @Nullable Nested outer) {

	}

}
