package dev.zklock.aop;

import java.lang.reflect.Method;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.expression.Expression;

/**
 * What one {@code @DistributedLock} method asks for, resolved and checked once.
 *
 * @param method the annotated method, as declared on the target class
 * @param targetClass the target class
 * @param keyExpression the key expression as written
 * @param parsedKey the parsed key expression
 * @param waitMs the wait in milliseconds: -1 for the default, 0 for one attempt
 * @param elementKey the cache key of the method on its target class
 * @author zk-lock
 */
public record LockOperation(Method method, Class<?> targetClass, String keyExpression, Expression parsedKey,
		long waitMs, AnnotatedElementKey elementKey) {

	/**
	 * Return the method as {@code Class.method(ParamType, ...)}, for messages.
	 * @return the description
	 */
	public String describeMethod() {
		return describe(this.method, this.targetClass);
	}

	static String describe(Method method, Class<?> targetClass) {
		StringBuilder sb = new StringBuilder(targetClass.getName()).append('.').append(method.getName()).append('(');
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			sb.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return sb.append(')').toString();
	}

}
