package dev.zklock.leadership;

import org.jspecify.annotations.Nullable;
import org.springframework.core.NamedThreadLocal;

/**
 * Keeps the {@link LeaderContext} of the leader work the current thread runs: set by
 * {@link LeaderWork} while it is open, nested as calls are.
 */
final class LeaderContextHolder {

	private static final ThreadLocal<@Nullable Nested> current = new NamedThreadLocal<>("zk-lock leader context");

	private LeaderContextHolder() {
	}

	static @Nullable LeaderContext get() {
		Nested nested = current.get();
		return (nested != null) ? nested.context : null;
	}

	/**
	 * Make {@code context} the innermost, until the returned handle is closed.
	 */
	static Runnable push(LeaderContext context) {
		Nested previous = current.get();
		current.set(new Nested(context, previous));
		return () -> {
			if (previous != null) {
				current.set(previous);
			}
			else {
				current.remove();
			}
		};
	}

	private record Nested(LeaderContext context, @Nullable Nested outer) {

	}

}
