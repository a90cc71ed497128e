package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Where a pointcut asks whether a method is one of its annotation's
 * ({@link LockOperationSource}, {@link LeaderOperationSource}), so that both annotations
 * match methods through one {@link OperationSourcePointcut}.
 */
interface ProxiedMethodSource {

	/**
	 * Return whether the class may have an annotated method: {@code false} only if it
	 * surely has none, decided cheaply and without throwing.
	 * @param targetClass the class
	 * @return whether to look at its methods
	 */
	boolean isCandidateClass(Class<?> targetClass);

	/**
	 * Return the operation of a method, if it has one.
	 * @param method the method
	 * @param targetClass the target class, if known
	 * @return the operation, or {@code null}
	 */
	@Nullable ProxiedMethod getOperation(Method method, @Nullable Class<?> targetClass);

}
