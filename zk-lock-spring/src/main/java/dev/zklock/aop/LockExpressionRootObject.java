package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The root object of a {@code @DistributedLock} key expression: {@code #root.method},
 * {@code #root.target}, {@code #root.targetClass}, {@code #root.args} and
 * {@code #root.methodName}. Public, so that SpEL can compile expressions that read it.
 *
 * @author zk-lock
 */
public final class LockExpressionRootObject {

	private final Method method;

	private final @Nullable Object[] args;

	private final Object target;

	private final Class<?> targetClass;

	/**
	 * Create a new instance.
	 * @param method the invoked method
	 * @param args the arguments
	 * @param target the target object
	 * @param targetClass the target class
	 */
	LockExpressionRootObject(Method method, @Nullable Object[] args, Object target, Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/**
	 * Return the invoked method.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return the name of the invoked method.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * Return the arguments.
	 * @return the arguments
	 */
	public @Nullable Object[] getArgs() {
		return this.args;
	}

	/**
	 * Return the target object.
	 * @return the target
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * Return the target class.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
