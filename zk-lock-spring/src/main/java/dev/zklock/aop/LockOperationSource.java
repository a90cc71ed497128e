package dev.zklock.aop;

import java.io.Closeable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.DistributedLock;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.ProxyConfig;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.Aware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @DistributedLock} of a method, on the method itself, on an interface method
 * it implements or on a superclass method it overrides, and turns it into a checked
 * {@link LockOperation}, once per method and target class.
 *
 * <p>Checking happens here, so it happens when the bean is proxied, at startup. A declaration
 * that cannot work raises an {@link InvalidLockDeclarationException} naming the method: a
 * method no proxy can intercept (private, static, final under class-based proxying, or a final
 * class), a return type whose work outlives the call in a way the lock cannot follow, a wait
 * below -1, and a key expression that does not parse or cannot evaluate.
 */
final class LockOperationSource {

	private static final Object NONE = new Object();

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			LockOperationSource.class.getClassLoader());

	private final Map<MethodClassKey, Object> operations = new ConcurrentHashMap<>(256);

	private final Map<Class<?>, Boolean> checkedClasses = new ConcurrentHashMap<>(256);

	private final LockKeyExpressionEvaluator evaluator;

	private final KeyExpressionChecker checker;

	private final @Nullable BeanFactory beanFactory;

	LockOperationSource(LockKeyExpressionEvaluator evaluator, @Nullable BeanFactory beanFactory) {
		this.evaluator = evaluator;
		this.checker = new KeyExpressionChecker(beanFactory);
		this.beanFactory = beanFactory;
	}

	/**
	 * Return the lock operation of a method called on a target class.
	 * @param method the method, possibly an interface method
	 * @param targetClass the target class, if known
	 * @return the operation, or {@code null} if the method is not locked
	 * @throws InvalidLockDeclarationException if the declaration cannot work
	 */
	@Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
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
	 * @throws InvalidLockDeclarationException if a declaration cannot work
	 */
	boolean hasLockedMethods(Class<?> targetClass) {
		Boolean known = this.checkedClasses.get(targetClass);
		if (known != null) {
			return known;
		}
		AtomicBoolean found = new AtomicBoolean();
		if (AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
			ReflectionUtils.doWithMethods(targetClass, (method) -> {
				LockOperation operation = getOperation(method, targetClass);
				if (operation != null) {
					found.set(true);
					checkProxyable(operation);
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
		checkModifiers(specificMethod, description);
		String expression = annotation.key();
		if (expression.isBlank()) {
			throw new InvalidLockDeclarationException(description, expression, "it is empty",
					"Give the lock a key, e.g. key = \"'inventory'\" or key = \"'stock:' + #sku\"");
		}
		if (annotation.waitMs() < -1) {
			throw new InvalidLockDeclarationException(description, null,
					"waitMs must be -1 (the default wait), 0 (one attempt) or positive, but was " + annotation.waitMs(),
					"Set waitMs to -1, 0 or a positive number of milliseconds");
		}
		AnnotatedElementKey elementKey = new AnnotatedElementKey(specificMethod, userClass);
		Expression parsed;
		try {
			parsed = this.evaluator.parse(expression, elementKey);
		}
		catch (ParseException ex) {
			throw new InvalidLockDeclarationException(description, expression,
					"it is not a valid SpEL expression: " + ex.getMessage(),
					"Fix the expression; text is quoted ('stock:'), parameters are #name");
		}
		if (parsed instanceof SpelExpression spel) {
			KeyExpressionChecker.Problem problem = this.checker.check(spel.getAST(), specificMethod,
					this.evaluator.parameterNames().getParameterNames(specificMethod));
			if (problem != null) {
				throw new InvalidLockDeclarationException(description, expression, "it " + problem.problem(),
						problem.action());
			}
		}
		ReactiveAdapter adapter = REACTOR_PRESENT
				? ReactiveAdapterRegistry.getSharedInstance().getAdapter(specificMethod.getReturnType()) : null;
		return new LockOperation(specificMethod, userClass, expression, parsed, annotation.waitMs(), elementKey,
				returnKind(specificMethod, adapter, description), adapter);
	}

	/**
	 * Methods that no Spring proxy can intercept would run without their lock.
	 */
	private static void checkModifiers(Method method, String description) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers)) {
			throw new InvalidLockDeclarationException(description, null,
					"the method is private, and Spring's proxies cannot intercept private methods: it would run without its lock",
					"Make the method public (or protected) and call it through the bean, not through 'this'");
		}
		if (Modifier.isStatic(modifiers)) {
			throw new InvalidLockDeclarationException(description, null,
					"the method is static, and Spring's proxies only intercept calls on a bean: it would run without its lock",
					"Make the method an instance method of the bean, or lock in code with ZkLockTemplate");
		}
	}

	/**
	 * Under class-based proxying (Spring Boot's default, and for classes without interfaces),
	 * the proxy is a subclass: a final class cannot be proxied and a final method is not
	 * intercepted. Under interface-based proxying, only interface methods are.
	 */
	private void checkProxyable(LockOperation operation) {
		Method method = operation.method();
		Class<?> targetClass = operation.targetClass();
		if (!usesClassProxies(targetClass)) {
			if (!isInterfaceMethod(method, targetClass)) {
				throw new InvalidLockDeclarationException(operation.describeMethod(), null,
						"the bean gets an interface-based proxy, and the method is on none of its interfaces: "
								+ "callers cannot reach it through the proxy, so it would run without its lock",
						"Declare the method on one of the bean's interfaces, or use class-based proxies "
								+ "(spring.aop.proxy-target-class=true, or @EnableDistributedLocks(proxyTargetClass = true))");
			}
			return;
		}
		if (Modifier.isFinal(targetClass.getModifiers())) {
			throw new InvalidLockDeclarationException(operation.describeMethod(), null,
					"its class is final, and class-based proxies are subclasses: it would run without its lock",
					"Make the class non-final, or declare the method on an interface and set "
							+ "spring.aop.proxy-target-class=false (or @EnableDistributedLocks(proxyTargetClass = false))");
		}
		if (Modifier.isFinal(method.getModifiers())) {
			throw new InvalidLockDeclarationException(operation.describeMethod(), null,
					"the method is final, and class-based proxies cannot override it: it would run without its lock",
					"Remove 'final' from the method");
		}
	}

	/**
	 * Whether beans of a class get class-based (CGLIB) proxies: the auto-proxy creator is set so,
	 * or the class has no interface worth proxying, as Spring decides.
	 */
	private boolean usesClassProxies(Class<?> targetClass) {
		if (this.beanFactory != null && this.beanFactory.containsBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
				&& this.beanFactory.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME) instanceof ProxyConfig config
				&& config.isProxyTargetClass()) {
			return true;
		}
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
			boolean callback = InitializingBean.class == candidate || DisposableBean.class == candidate
					|| Closeable.class == candidate || AutoCloseable.class == candidate
					|| Aware.class.isAssignableFrom(candidate);
			if (!callback && candidate.getMethods().length > 0) {
				return false;
			}
		}
		return true;
	}

	private static boolean isInterfaceMethod(Method method, Class<?> targetClass) {
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
			if (ClassUtils.hasMethod(candidate, method.getName(), method.getParameterTypes())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * How the method's work ends. Types whose work may run after the method returned, and that
	 * the lock cannot follow, fail: the work would run without its lock.
	 */
	private static LockOperation.ReturnKind returnKind(Method method, @Nullable ReactiveAdapter adapter,
			String description) {
		Class<?> type = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(type)) {
			return LockOperation.ReturnKind.COMPLETION_STAGE;
		}
		if (adapter != null) {
			return LockOperation.ReturnKind.REACTIVE;
		}
		boolean kotlinSuspend = method.getParameterCount() > 0
				&& method.getParameterTypes()[method.getParameterCount() - 1].getName()
					.equals("kotlin.coroutines.Continuation");
		if (kotlinSuspend || Future.class.isAssignableFrom(type) || BaseStream.class.isAssignableFrom(type)
				|| isPublisher(type)) {
			throw new InvalidLockDeclarationException(description, null,
					((kotlinSuspend) ? "it is a Kotlin suspend function" : "it returns " + type.getName())
							+ ", whose work may go on after the method returns; the lock cannot be held across it, "
							+ "so that work would run without its lock",
					"Return CompletableFuture or CompletionStage" + (REACTOR_PRESENT ? ", Mono or Flux" : "")
							+ " (the lock is held until it completes), or return the result itself");
		}
		return LockOperation.ReturnKind.SYNCHRONOUS;
	}

	private static boolean isPublisher(Class<?> type) {
		if (java.util.concurrent.Flow.Publisher.class.isAssignableFrom(type)) {
			return true;
		}
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(type)) {
			if (candidate.getName().equals("org.reactivestreams.Publisher")) {
				return true;
			}
		}
		return false;
	}

}
