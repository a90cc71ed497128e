package dev.zklock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;
import dev.zklock.template.LockDefinition;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.ProxyConfig;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
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

	/** Kotlin suspend functions need Spring's coroutine bridge, which needs Reactor and these. */
	private static final boolean COROUTINES_PRESENT = REACTOR_PRESENT && KotlinDetector.isKotlinReflectPresent()
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LockOperationSource.class.getClassLoader());

	private static final Class<?> MONO = REACTOR_PRESENT
			? ClassUtils.resolveClassName("reactor.core.publisher.Mono", LockOperationSource.class.getClassLoader())
			: Void.class;

	/** Types whose work runs after they are returned, known by name so as not to need them. */
	private static final List<String> DEFERRED_TYPES = List.of("io.reactivex.rxjava3.core.Single",
			"io.reactivex.rxjava3.core.Maybe", "io.reactivex.rxjava3.core.Completable",
			"io.reactivex.rxjava3.core.Observable", "io.reactivex.rxjava3.core.Flowable", "io.smallrye.mutiny.Uni",
			"io.smallrye.mutiny.Multi", "kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Deferred");

	private final Map<MethodClassKey, Object> operations = new ConcurrentHashMap<>(256);

	/** The locked operations of each class checked so far; empty if it has none. */
	private final Map<Class<?>, List<LockOperation>> checkedClasses = new ConcurrentHashMap<>(256);

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
		return !lockedOperations(targetClass).isEmpty();
	}

	/**
	 * Check every locked method of a class, once, and return their operations.
	 * @param targetClass the class
	 * @return the operations, empty if the class has no locked method
	 * @throws InvalidLockDeclarationException if a declaration cannot work
	 */
	List<LockOperation> lockedOperations(Class<?> targetClass) {
		List<LockOperation> known = this.checkedClasses.get(targetClass);
		if (known != null) {
			return known;
		}
		List<LockOperation> found = new ArrayList<>();
		if (AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
			// A JDK proxy (a repository, an HTTP interface client) is locked through its interfaces
			Class<?> declaring = Proxy.isProxyClass(targetClass) ? null : targetClass;
			Iterable<Class<?>> classes = (declaring != null) ? List.of(declaring)
					: ClassUtils.getAllInterfacesForClassAsSet(targetClass);
			for (Class<?> candidate : classes) {
				ReflectionUtils.doWithMethods(candidate, (method) -> {
					LockOperation operation = getOperation(method, targetClass);
					if (operation != null && !found.contains(operation)) {
						found.add(operation);
						checkFinalClass(operation);
					}
				}, ReflectionUtils.USER_DECLARED_METHODS);
			}
		}
		List<LockOperation> operations = List.copyOf(found);
		this.checkedClasses.put(targetClass, operations);
		return operations;
	}

	private @Nullable LockOperation resolve(Method method, @Nullable Class<?> targetClass) {
		Class<?> userClass = (targetClass != null) ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
		if (Proxy.isProxyClass(userClass)) {
			// The target is itself a JDK proxy: its interface method is the declaration
			userClass = method.getDeclaringClass();
		}
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
			KeyExpressionChecker.Problem problem = this.checker.check(spel.getAST(), specificMethod, userClass,
					this.evaluator.parameterNames().getParameterNames(specificMethod));
			if (problem != null) {
				throw new InvalidLockDeclarationException(description, expression, "it " + problem.problem(),
						problem.action());
			}
		}
		// What a generic method returns on this class, not its erasure
		Class<?> returnType = ResolvableType.forMethodReturnType(specificMethod, userClass)
			.resolve(specificMethod.getReturnType());
		boolean suspending = COROUTINES_PRESENT && KotlinDetector.isSuspendingFunction(specificMethod);
		// Spring's coroutine bridge calls a suspend function as a Mono
		ReactiveAdapter adapter = !REACTOR_PRESENT ? null
				: ReactiveAdapterRegistry.getSharedInstance().getAdapter(suspending ? MONO : returnType);
		LockOperation.ReturnKind kind = suspending ? LockOperation.ReturnKind.SUSPENDING
				: returnKind(specificMethod, returnType, adapter, description);
		NotAcquired notAcquired = notAcquired(annotation, specificMethod, userClass, returnType, kind, description);
		LockDefinition definition;
		try {
			definition = LockDefinition.named(name(annotation, specificMethod, userClass, description))
				.withWait(maxWait(annotation, description))
				.withHoldAtLeast(duration(annotation.holdAtLeast(), "holdAtLeast", description))
				.withWhenBusy(notAcquired.whenBusy());
		}
		catch (IllegalArgumentException ex) {
			// LockDefinition's checks always give a message; another thrower might not
			String problem = (ex.getMessage() != null) ? ex.getMessage() : ex.toString();
			throw new InvalidLockDeclarationException(description, null, problem,
					"Give name a non-blank value and holdAtLeast a duration of at most 100 years");
		}
		return new LockOperation(specificMethod, userClass, expression, parsed, definition, elementKey, kind, adapter,
				notAcquired);
	}

	private String name(DistributedLock annotation, Method method, Class<?> userClass, String description) {
		String name = resolvePlaceholders(annotation.name(), "name", description).trim();
		return name.isEmpty() ? userClass.getSimpleName() + "." + method.getName() : name;
	}

	/**
	 * The wait: {@code waitAtMost} or {@code waitMs}, never both; {@code null} for the
	 * registry's default.
	 */
	private @Nullable Duration maxWait(DistributedLock annotation, String description) {
		Duration waitAtMost = duration(annotation.waitAtMost(), "waitAtMost", description);
		if (annotation.waitMs() < -1) {
			throw new InvalidLockDeclarationException(description, null,
					"waitMs must be -1 (the default wait), 0 (one attempt) or positive, but was " + annotation.waitMs(),
					"Set waitMs to -1, 0 or a positive number of milliseconds");
		}
		if (waitAtMost != null && annotation.waitMs() != -1) {
			throw new InvalidLockDeclarationException(description, null,
					"both waitAtMost (\"" + annotation.waitAtMost() + "\") and waitMs (" + annotation.waitMs()
							+ ") are set, and only one can say how long to wait",
					"Keep one of them: waitAtMost = \"2s\" (a duration or a ${...} placeholder) or waitMs = 2000");
		}
		if (waitAtMost != null) {
			return waitAtMost;
		}
		return (annotation.waitMs() == -1) ? null : Duration.ofMillis(annotation.waitMs());
	}

	/**
	 * A duration attribute: {@code 30s}, {@code 500ms}, {@code PT30S}, or a placeholder
	 * resolving to one; {@code null} when empty.
	 */
	private @Nullable Duration duration(String value, String attribute, String description) {
		String resolved = resolvePlaceholders(value, attribute, description).trim();
		if (resolved.isEmpty()) {
			return null;
		}
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(resolved);
		}
		catch (RuntimeException ex) {
			throw new InvalidLockDeclarationException(description, null, attribute + " \"" + value + "\""
					+ (resolved.equals(value) ? "" : " (resolved to \"" + resolved + "\")") + " is not a duration",
					"Write " + attribute + " as a duration such as \"30s\", \"500ms\", \"2m\" or \"PT30S\"");
		}
		if (duration.isNegative()) {
			throw new InvalidLockDeclarationException(description, null,
					attribute + " \"" + value + "\" is negative (" + duration + ")",
					"Give " + attribute + " a duration of zero or more");
		}
		return duration;
	}

	private String resolvePlaceholders(String value, String attribute, String description) {
		if (value.isEmpty() || !(this.beanFactory instanceof ConfigurableBeanFactory configurable)) {
			return value;
		}
		String resolved;
		try {
			resolved = configurable.resolveEmbeddedValue(value);
		}
		catch (IllegalArgumentException ex) {
			throw unresolvable(attribute, value, description, ex.getMessage());
		}
		// Without a strict placeholder configurer, Spring leaves what it cannot resolve as it was
		if (resolved != null && resolved.contains("${")) {
			throw unresolvable(attribute, value, description, "no property gives it a value");
		}
		return (resolved != null) ? resolved : "";
	}

	private static InvalidLockDeclarationException unresolvable(String attribute, String value, String description,
			@Nullable String why) {
		return new InvalidLockDeclarationException(description, null,
				attribute + " \"" + value + "\" cannot be resolved: " + why,
				"Define the property it refers to, or give the placeholder a default, e.g. ${app.lock-wait:2s}");
	}

	/**
	 * What the call does when the lock is not acquired: a fallback method if one is named,
	 * else skip or throw. Checked here so that a fallback that cannot be called, or a skip that
	 * has nothing to return, fails startup.
	 */
	private static NotAcquired notAcquired(DistributedLock annotation, Method method, Class<?> userClass,
			Class<?> returnType, LockOperation.ReturnKind kind, String description) {
		String fallback = annotation.fallback().trim();
		if (!fallback.isEmpty()) {
			if (kind == LockOperation.ReturnKind.SUSPENDING) {
				throw new InvalidLockDeclarationException(description, null,
						"fallback is not supported on a Kotlin suspend function",
						"Remove fallback and catch LockAcquisitionException around the call");
			}
			return FallbackMethods.find(fallback, method, userClass, returnType, description);
		}
		if (annotation.onLocked() == OnLocked.SKIP) {
			if (kind == LockOperation.ReturnKind.SUSPENDING) {
				throw new InvalidLockDeclarationException(description, null,
						"onLocked = SKIP is not supported on a Kotlin suspend function",
						"Remove onLocked and catch LockAcquisitionException around the call");
			}
			if (returnType.isPrimitive() && returnType != void.class) {
				throw new InvalidLockDeclarationException(description, null,
						"onLocked = SKIP needs something to return when the method is skipped, but it returns "
								+ returnType.getName() + ", which has no empty value",
						"Return a wrapper type (" + org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(returnType)
							.getSimpleName() + ", null when skipped), an Optional, or void; or name a fallback method");
			}
			NotAcquired.Skip skip = new NotAcquired.Skip(returnType);
			try {
				skip.nothing();
			}
			catch (RuntimeException ex) {
				throw new InvalidLockDeclarationException(description, null,
						"onLocked = SKIP needs an empty " + returnType.getName() + " to return when the method is "
								+ "skipped, and none can be made (" + ex.getMessage() + ")",
						"Declare the return type as an interface such as List, Set, Queue or Map, or Optional, or "
								+ "name a fallback method");
			}
			return skip;
		}
		return NotAcquired.THROW;
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
	 * A final class cannot get a class-based proxy, and when the auto-proxy creator is set to
	 * class-based proxies Spring would fail to create one with a message that names no method:
	 * say which method cannot be locked first. Everything that depends on the proxy Spring
	 * actually makes is checked on that proxy ({@link LockedBeanVerifier}).
	 */
	private void checkFinalClass(LockOperation operation) {
		Class<?> targetClass = operation.targetClass();
		if (Modifier.isFinal(targetClass.getModifiers()) && !targetClass.isInterface()
				&& !Proxy.isProxyClass(targetClass) && autoProxyCreatorProxiesClasses()) {
			throw new InvalidLockDeclarationException(operation.describeMethod(), null,
					"its class is final, and class-based proxies are subclasses: it would run without its lock",
					"Make the class non-final, or declare the method on an interface and set "
							+ "spring.aop.proxy-target-class=false (or @EnableDistributedLocks(proxyTargetClass = false))");
		}
	}

	private boolean autoProxyCreatorProxiesClasses() {
		return this.beanFactory != null && this.beanFactory.containsBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
				&& this.beanFactory.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME) instanceof ProxyConfig config
				&& config.isProxyTargetClass();
	}

	/**
	 * How the method's work ends. Types whose work may run after the method returned, and that
	 * the lock cannot follow, fail: the work would run without its lock.
	 */
	private static LockOperation.ReturnKind returnKind(Method method, Class<?> type, @Nullable ReactiveAdapter adapter,
			String description) {
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
				|| isPublisher(type) || isDeferredByName(type)) {
			throw new InvalidLockDeclarationException(description, null,
					((kotlinSuspend) ? "it is a Kotlin suspend function, and the application lacks Reactor, "
							+ "kotlinx-coroutines-reactor or kotlin-reflect, which Spring's coroutine bridge needs"
							: "it returns " + type.getName())
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
		return isAssignableByName("org.reactivestreams.Publisher", type);
	}

	/**
	 * Deferred types of libraries Spring adapts only when Reactor is present (or not at all):
	 * without an adapter, their work would run after the lock is gone.
	 */
	private static boolean isDeferredByName(Class<?> type) {
		for (String name : DEFERRED_TYPES) {
			if (isAssignableByName(name, type)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isAssignableByName(String name, Class<?> type) {
		if (!ClassUtils.isPresent(name, type.getClassLoader())) {
			return false;
		}
		return ClassUtils.resolveClassName(name, type.getClassLoader()).isAssignableFrom(type);
	}

}
