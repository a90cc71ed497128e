package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.DistributedLock;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @DistributedLock} of a method, on the method itself, on an interface method
 * it implements or on a superclass method it overrides, and turns it into a checked
 * {@link LockOperation}, once per method and target class.
 *
 * <p>Checking happens here, so it happens when the bean is proxied, at startup: a key that
 * does not parse, refers to a parameter the method lacks, or a wait below -1 raise an
 * {@link InvalidLockExpressionException} naming the class, method and expression.
 *
 * @author zk-lock
 */
public class LockOperationSource {

	private static final Object NONE = new Object();

	private final Map<MethodClassKey, Object> operations = new ConcurrentHashMap<>(256);

	private final Map<Class<?>, Boolean> checkedClasses = new ConcurrentHashMap<>(256);

	private final LockKeyExpressionEvaluator evaluator;

	/**
	 * Create a new instance.
	 * @param evaluator the evaluator that parses key expressions
	 */
	public LockOperationSource(LockKeyExpressionEvaluator evaluator) {
		this.evaluator = evaluator;
	}

	/**
	 * Return the lock operation of a method called on a target class.
	 * @param method the method, possibly an interface method
	 * @param targetClass the target class, if known
	 * @return the operation, or {@code null} if the method is not locked
	 * @throws InvalidLockExpressionException if the declaration is invalid
	 */
	public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.operations.get(cacheKey);
		if (cached == null) {
			LockOperation operation = resolve(method, targetClass);
			cached = (operation != null) ? operation : NONE;
			this.operations.put(cacheKey, cached);
		}
		return (cached != NONE) ? (LockOperation) cached : null;
	}

	/**
	 * Check every locked method of a class, once, and return whether it has any.
	 * @param targetClass the class
	 * @return whether any method of the class is locked
	 * @throws InvalidLockExpressionException if a declaration is invalid
	 */
	public boolean hasLockedMethods(Class<?> targetClass) {
		Boolean known = this.checkedClasses.get(targetClass);
		if (known != null) {
			return known;
		}
		AtomicBoolean found = new AtomicBoolean();
		if (AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
			ReflectionUtils.doWithMethods(targetClass, (method) -> {
				if (getOperation(method, targetClass) != null) {
					found.set(true);
				}
			}, ReflectionUtils.USER_DECLARED_METHODS);
		}
		this.checkedClasses.put(targetClass, found.get());
		return found.get();
	}

	private @Nullable LockOperation resolve(Method method, @Nullable Class<?> targetClass) {
		Class<?> userClass = (targetClass != null) ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
		Method specificMethod = AopUtils.getMostSpecificMethod(method, userClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, DistributedLock.class);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null) {
			return null;
		}
		String description = LockOperation.describe(specificMethod, userClass);
		String expression = annotation.key();
		if (expression.isBlank()) {
			throw new InvalidLockExpressionException(description, expression, "the key expression is empty", null);
		}
		if (annotation.waitMs() < -1) {
			throw new InvalidLockExpressionException(description, expression, "waitMs must be -1 (the default wait), "
					+ "0 (one attempt) or positive, but was " + annotation.waitMs(), null);
		}
		AnnotatedElementKey elementKey = new AnnotatedElementKey(specificMethod, userClass);
		Expression parsed;
		try {
			parsed = this.evaluator.parse(expression, elementKey);
		}
		catch (ParseException ex) {
			throw new InvalidLockExpressionException(description, expression,
					"it is not a valid SpEL expression: " + ex.getMessage(), null);
		}
		checkVariables(parsed, specificMethod, description, expression);
		return new LockOperation(specificMethod, userClass, expression, parsed, annotation.waitMs(), elementKey);
	}

	/**
	 * Every {@code #name} must be a parameter of the method (by name, or as {@code #p0} /
	 * {@code #a0}), {@code #root} or {@code #this}: anything else would evaluate to null at the
	 * first call, long after startup.
	 */
	private void checkVariables(Expression parsed, Method method, String description, String expression) {
		if (!(parsed instanceof SpelExpression spel)) {
			return;
		}
		String[] names = this.evaluator.parameterNames().getParameterNames(method);
		Set<String> allowed = new HashSet<>(Set.of("root", "this"));
		for (int i = 0; i < method.getParameterCount(); i++) {
			allowed.add("p" + i);
			allowed.add("a" + i);
			if (names != null) {
				allowed.add(names[i]);
			}
		}
		Set<String> unknown = new HashSet<>();
		collectVariables(spel.getAST(), allowed, unknown);
		if (!unknown.isEmpty() && names != null) {
			throw new InvalidLockExpressionException(description, expression,
					"it refers to " + String.join(", ", unknown.stream().map((name) -> "#" + name).sorted().toList())
							+ ", which the method does not have; its parameters are "
							+ (names.length == 0 ? "none" : String.join(", ", names)),
					null);
		}
		if (!unknown.isEmpty()) {
			throw new InvalidLockExpressionException(description, expression, "it refers to parameters by name but "
					+ "their names are not available; compile with -parameters or use #p0, #p1, ...", null);
		}
	}

	private void collectVariables(SpelNode node, Set<String> allowed, Set<String> unknown) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!allowed.contains(name)) {
				unknown.add(name);
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectVariables(node.getChild(i), allowed, unknown);
		}
	}

}
