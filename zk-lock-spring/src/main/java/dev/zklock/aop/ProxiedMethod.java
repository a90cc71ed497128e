package dev.zklock.aop;

import java.lang.reflect.Method;

/**
 * A method that one of this package's proxies applies an annotation to: a locked method
 * ({@link LockOperation}) or a leader-only one ({@link LeaderOperation}), as the startup
 * checks of {@link LockedBeanVerifier} and {@link SelfInvocationChecker} see it, so that
 * both annotations share them.
 */
interface ProxiedMethod {

	/**
	 * Return the annotated method, as declared on the target class.
	 * @return the method
	 */
	Method method();

	/**
	 * Return the target class.
	 * @return the class
	 */
	Class<?> targetClass();

	/**
	 * Return the annotation, as {@code @DistributedLock}, for messages.
	 * @return the annotation
	 */
	String annotation();

	/**
	 * Return the method as {@code Class.method(ParamType, ...)}, for messages.
	 * @return the description
	 */
	String describeMethod();

	/**
	 * Return what happens if the proxy is bypassed, to end a sentence in messages:
	 * {@code "it would run without its lock"}.
	 * @return the consequence
	 */
	String unguarded();

	/**
	 * Return whether a call of the method through {@code this} bypasses what the
	 * annotation does, and is looked for at startup.
	 * @return whether self-calls are checked
	 */
	default boolean checksSelfCalls() {
		return true;
	}

	/**
	 * Return whether a self-call from this method to {@code callee} is harmless, as what
	 * the callee's annotation asks for holds already while this method runs.
	 * @param callee the method called through {@code this}
	 * @return whether the call needs no proxy
	 */
	default boolean covers(ProxiedMethod callee) {
		return false;
	}

}
