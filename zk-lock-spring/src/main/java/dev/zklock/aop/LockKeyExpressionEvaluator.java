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
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses and evaluates {@code @DistributedLock} key expressions, the way Spring's cache
 * abstraction evaluates {@code @Cacheable} keys: parsed expressions cached per method,
 * arguments exposed by name and position through a {@link MethodBasedEvaluationContext}.
 */
final class LockKeyExpressionEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> keyCache = new ConcurrentHashMap<>(64);

	private final @Nullable BeanResolver beanResolver;

	private final ParameterNameDiscoverer parameterNames = new CachingParameterNameDiscoverer();

	/**
	 * Create a new instance.
	 * @param beanFactory the bean factory that {@code @bean} references resolve against,
	 * if any
	 */
	LockKeyExpressionEvaluator(@Nullable BeanFactory beanFactory) {
		// Keys are evaluated on every locked call: let SpEL compile them to bytecode once
		// warm
		super(new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED,
				LockKeyExpressionEvaluator.class.getClassLoader())));
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Parse a key expression, or return it from the cache.
	 * @param expression the expression
	 * @param methodKey the method it belongs to
	 * @return the parsed expression
	 * @throws org.springframework.expression.ParseException on a syntax error
	 */
	Expression parse(String expression, AnnotatedElementKey methodKey) {
		return getExpression(this.keyCache, methodKey, expression);
	}

	/**
	 * Evaluate an operation's key for one invocation.
	 * @param operation the operation
	 * @param args the arguments
	 * @param target the target object
	 * @return the value, possibly null
	 */
	@Nullable Object evaluate(LockOperation operation, @Nullable Object[] args, Object target) {
		EvaluationContext context = createContext(operation.method(), args, target, operation.targetClass());
		return operation.parsedKey().getValue(context);
	}

	/**
	 * Return the parameter name discoverer used for {@code #name} references.
	 * @return the discoverer
	 */
	ParameterNameDiscoverer parameterNames() {
		return this.parameterNames;
	}

	private EvaluationContext createContext(Method method, @Nullable Object[] args, Object target,
			Class<?> targetClass) {
		LockExpressionRootObject root = new LockExpressionRootObject(method, args, target, targetClass);
		// Spring takes @Nullable Object[]; javac before JDK 22 does not read that
		// type-use annotation from its jar, so NullAway on JDK 17 would see Object[]
		// there
		@SuppressWarnings("NullAway")
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				this.parameterNames);
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		return context;
	}

	/**
	 * Parameter names are looked up on every evaluation; reflection answers the same each
	 * time.
	 */
	private static final class CachingParameterNameDiscoverer extends DefaultParameterNameDiscoverer {

		private static final @Nullable String[] NONE = new String[0];

		private final Map<Method, @Nullable String[]> names = new ConcurrentHashMap<>(64);

		// Spring's own return type; javac before JDK 22 does not read its type-use
		// annotations from the jar, so NullAway on JDK 17 would see String[] in the
		// overridden method
		@Override
		@SuppressWarnings("NullAway")
		public @Nullable String @Nullable [] getParameterNames(Method method) {
			@Nullable String[] cached = this.names.computeIfAbsent(method, (key) -> {
				@Nullable String @Nullable [] discovered = super.getParameterNames(key);
				return (discovered != null) ? discovered : NONE;
			});
			return (cached != NONE) ? cached : null;
		}

	}

}
