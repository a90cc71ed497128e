package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * Parses and evaluates {@code @DistributedLock} key expressions, the way Spring's cache
 * abstraction evaluates {@code @Cacheable} keys: parsed expressions cached per method, arguments
 * exposed by name and position through a {@link MethodBasedEvaluationContext}.
 *
 * @author zk-lock
 */
public class LockKeyExpressionEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> keyCache = new ConcurrentHashMap<>(64);

	private final @Nullable BeanFactory beanFactory;

	/**
	 * Create a new instance.
	 * @param beanFactory the bean factory that {@code @bean} references resolve against, if any
	 */
	public LockKeyExpressionEvaluator(@Nullable BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Parse a key expression, or return it from the cache.
	 * @param expression the expression
	 * @param methodKey the method it belongs to
	 * @return the parsed expression
	 * @throws org.springframework.expression.ParseException on a syntax error
	 */
	public Expression parse(String expression, AnnotatedElementKey methodKey) {
		return getExpression(this.keyCache, methodKey, expression);
	}

	/**
	 * Evaluate an operation's key for one invocation.
	 * @param operation the operation
	 * @param args the arguments
	 * @param target the target object
	 * @return the value, possibly null
	 */
	public @Nullable Object evaluate(LockOperation operation, Object[] args, Object target) {
		EvaluationContext context = createContext(operation.method(), args, target, operation.targetClass());
		return operation.parsedKey().getValue(context);
	}

	/**
	 * Return the parameter name discoverer used for {@code #name} references.
	 * @return the discoverer
	 */
	public ParameterNameDiscoverer parameterNames() {
		return getParameterNameDiscoverer();
	}

	private EvaluationContext createContext(Method method, Object[] args, Object target, Class<?> targetClass) {
		LockExpressionRootObject root = new LockExpressionRootObject(method, args, target, targetClass);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		if (this.beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(this.beanFactory));
		}
		return context;
	}

}
