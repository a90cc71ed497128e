package dev.zklock.aop;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;

/**
 * Thrown when a {@code @DistributedLock} or {@code @DistributedSemaphore} declaration
 * cannot work: the method cannot be proxied (private, static, final, or not on a proxied
 * interface), returns a type whose work outlives the call in a way no lock can follow,
 * has a key expression that does not parse or cannot evaluate (an unknown parameter,
 * property, method or bean), a wait or minimum hold that is not a duration, or a fallback
 * that cannot be called in the method's place; or contradicts itself or another
 * declaration: a read or write side for work that outlives the call, permits below 1,
 * both annotations on one method, one key expression locked with two recipes. Raised when
 * the bean is proxied, so the application fails to start rather than running the method
 * without its lock.
 *
 * @author zk-lock
 */
public class InvalidLockDeclarationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String annotation;

	private final String method;

	private final @Nullable String expression;

	private final String problem;

	private final String action;

	/**
	 * Create a new instance.
	 * @param method the method, as {@code Class.method(ParamType, ...)}
	 * @param expression the key expression, or {@code null} if the problem is not in it
	 * @param problem what is wrong, as a sentence
	 * @param action what to do about it, as a sentence
	 */
	public InvalidLockDeclarationException(String method, @Nullable String expression, String problem, String action) {
		this("@DistributedLock", method, expression, problem, action);
	}

	/**
	 * Create a new instance for a declaration made with a given annotation.
	 * @param annotation the annotation, as {@code @DistributedSemaphore}
	 * @param method the method, as {@code Class.method(ParamType, ...)}
	 * @param expression the key expression, or {@code null} if the problem is not in it
	 * @param problem what is wrong, as a sentence
	 * @param action what to do about it, as a sentence
	 */
	public InvalidLockDeclarationException(String annotation, String method, @Nullable String expression,
			String problem, String action) {
		super("Invalid " + annotation + " on " + method
				+ ((expression != null) ? " with key expression \"" + LockPaths.printable(expression) + "\"" : "")
				+ ": " + problem);
		this.annotation = annotation;
		this.method = method;
		this.expression = expression;
		this.problem = problem;
		this.action = action;
	}

	/**
	 * Return the annotation of the declaration, as {@code @DistributedLock}.
	 * @return the annotation
	 */
	public String getAnnotation() {
		return this.annotation;
	}

	/**
	 * Return the method, as {@code Class.method(ParamType, ...)}.
	 * @return the method
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Return the key expression, if the problem is in it.
	 * @return the expression, or {@code null}
	 */
	public @Nullable String getExpression() {
		return this.expression;
	}

	/**
	 * Return what is wrong, as a sentence.
	 * @return the problem
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * Return what to do about it, as a sentence.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
