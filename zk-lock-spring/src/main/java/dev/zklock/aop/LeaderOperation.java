package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * What one {@code @LeaderOnly} method asks for, resolved and checked once: leader work of
 * a group, or one of the lifecycle methods of a leader-only component, which the
 * application context must not drive.
 *
 * @param group the group's name, placeholders resolved
 * @param method the method, as declared on the target class
 * @param targetClass the target class
 * @param kind what a call of the method does
 * @param onType whether the annotation is its type's rather than its own
 * @param skip what a skipped call returns; {@code null} but for {@link Kind#WORK}
 */
record LeaderOperation(String group, Method method, Class<?> targetClass, Kind kind, boolean onType,
		NotAcquired.@Nullable Skip skip) implements ProxiedMethod {

	static final String ANNOTATION = "@LeaderOnly";

	/**
	 * What a call of the method does.
	 */
	enum Kind {

		/** Runs as leader work if this instance leads the group, else is skipped. */
		WORK,

		/** {@code start()} of a leader-only component: the leadership starts it. */
		START,

		/** {@code stop()} of a leader-only component: the leadership stops it. */
		STOP,

		/**
		 * {@code stop(Runnable)} of a leader-only component: the leadership stops it; the
		 * callback runs at once.
		 */
		STOP_WITH_CALLBACK,

		/**
		 * {@code isAutoStartup()} of a leader-only component: {@code false}, so that the
		 * context does not start it.
		 */
		AUTO_STARTUP

	}

	@Override
	public String annotation() {
		return ANNOTATION;
	}

	@Override
	public String describeMethod() {
		return LockOperation.describe(this.method, this.targetClass);
	}

	@Override
	public String unguarded() {
		return (this.kind == Kind.WORK) ? "it would run on every instance, leader or not"
				: "the application context would start and stop the leader-only component on every instance";
	}

	/**
	 * A component's lifecycle methods are called by the context on the proxy and by the
	 * leadership on the target: a self-call bypasses nothing that matters.
	 */
	@Override
	public boolean checksSelfCalls() {
		return this.kind == Kind.WORK;
	}

	/**
	 * Leader work that calls leader work of its own group through {@code this} runs it as
	 * its own: the term it runs in holds, and ends both.
	 */
	@Override
	public boolean covers(ProxiedMethod callee) {
		return this.kind == Kind.WORK && callee instanceof LeaderOperation leaderOnly && leaderOnly.kind == Kind.WORK
				&& leaderOnly.group.equals(this.group);
	}

}
