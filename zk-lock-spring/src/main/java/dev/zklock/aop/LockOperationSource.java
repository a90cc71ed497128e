package dev.zklock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.annotation.LockMode;
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
 * Finds the {@code @DistributedLock} or {@code @DistributedSemaphore} of a method, on the
 * method itself, on an interface method it implements or on a superclass method it
 * overrides, and turns it into a checked {@link LockOperation}, once per method and
 * target class. Both annotations go through the same resolution and checks; only what
 * they take differs.
 *
 * <p>
 * Checking happens here, so it happens when the bean is proxied, at startup. A
 * declaration that cannot work raises an {@link InvalidLockDeclarationException} naming
 * the method: a method no proxy can intercept (private, static, final under class-based
 * proxying, or a final class), a return type whose work outlives the call in a way the
 * lock cannot follow (for a read or write side, any work that outlives the call), a wait
 * below -1, a key expression that does not parse or cannot evaluate, permits below 1, and
 * both annotations on one method.
 */
final class LockOperationSource {

	private static final Object NONE = new Object();

	private static final List<Class<? extends java.lang.annotation.Annotation>> ANNOTATIONS = List
		.of(DistributedLock.class, DistributedSemaphore.class);

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			LockOperationSource.class.getClassLoader());

	/**
	 * Kotlin suspend functions need Spring's coroutine bridge, which needs Reactor and
	 * these.
	 */
	private static final boolean COROUTINES_PRESENT = REACTOR_PRESENT && KotlinDetector.isKotlinReflectPresent()
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LockOperationSource.class.getClassLoader());

	private static final Class<?> MONO = REACTOR_PRESENT
			? ClassUtils.resolveClassName("reactor.core.publisher.Mono", LockOperationSource.class.getClassLoader())
			: Void.class;

	/**
	 * Types whose work runs after they are returned, known by name so as not to need
	 * them.
	 */
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
		if (AnnotationUtils.isCandidateClass(targetClass, ANNOTATIONS)) {
			// A JDK proxy (a repository, an HTTP interface client) is locked through its
			// interfaces
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
		DistributedLock lock = findAnnotation(specificMethod, method, DistributedLock.class);
		DistributedSemaphore semaphore = findAnnotation(specificMethod, method, DistributedSemaphore.class);
		if (lock == null && semaphore == null) {
			return null;
		}
		String description = LockOperation.describe(specificMethod, userClass);
		if (lock != null && semaphore != null) {
			throw new InvalidLockDeclarationException(LockDeclaration.SEMAPHORE, description, null,
					"the method also has @DistributedLock, and a call is guarded by one of them or the other, "
							+ "never both",
					"Keep @DistributedLock to run one call (or readers) at a time, or @DistributedSemaphore to run "
							+ "up to its permits at a time");
		}
		LockDeclaration declaration = (lock != null) ? LockDeclaration.of(lock) : LockDeclaration
			.of(Objects.requireNonNull(semaphore, "no @DistributedLock, so @DistributedSemaphore"));
		String annotation = declaration.annotation();
		checkModifiers(specificMethod, annotation, description);
		String expression = declaration.key();
		if (declaration.isSemaphore() && declaration.permits() < 1) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"permits must be at least 1, but was " + declaration.permits() + ": no call could ever run",
					"Set permits to how many calls may run at once across all instances, e.g. permits = 2");
		}
		if (expression.isBlank()) {
			throw new InvalidLockDeclarationException(annotation, description, expression, "it is empty",
					"Give the lock a key, e.g. key = \"'inventory'\" or key = \"'stock:' + #sku\"");
		}
		AnnotatedElementKey elementKey = new AnnotatedElementKey(specificMethod, userClass);
		Expression parsed;
		try {
			parsed = this.evaluator.parse(expression, elementKey);
		}
		catch (ParseException ex) {
			throw new InvalidLockDeclarationException(annotation, description, expression,
					"it is not a valid SpEL expression: " + ex.getMessage(),
					"Fix the expression; text is quoted ('stock:'), parameters are #name");
		}
		if (parsed instanceof SpelExpression spel) {
			KeyExpressionChecker.Problem problem = this.checker.check(spel.getAST(), specificMethod, userClass,
					this.evaluator.parameterNames().getParameterNames(specificMethod));
			if (problem != null) {
				throw new InvalidLockDeclarationException(annotation, description, expression,
						"it " + problem.problem(), problem.action());
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
				: returnKind(specificMethod, returnType, adapter, annotation, description);
		Duration holdAtLeast = duration(declaration.holdAtLeast(), "holdAtLeast", annotation, description);
		checkThreadOwnedSide(declaration, kind, returnType, holdAtLeast, description);
		if (declaration.revocable() && kind != LockOperation.ReturnKind.SYNCHRONOUS) {
			String work = (kind == LockOperation.ReturnKind.SUSPENDING) ? "it is a Kotlin suspend function"
					: "it returns " + returnType.getName();
			throw new InvalidLockDeclarationException(annotation, description, null,
					"revocable = true interrupts the thread that runs the method when its lock is asked back, and "
							+ work
							+ ", whose work goes on after the method returns, possibly on other threads, which nothing "
							+ "would interrupt",
					"Make the method synchronous (return the result itself), or remove revocable = true");
		}
		NotAcquired notAcquired = notAcquired(declaration, specificMethod, userClass, returnType, kind, description);
		LockDefinition definition;
		try {
			definition = LockDefinition.named(name(declaration, specificMethod, userClass, description))
				.withWait(maxWait(declaration, description))
				.withHoldAtLeast(holdAtLeast)
				.withWhenBusy(notAcquired.whenBusy())
				.withMode(declaration.mode())
				.withRevocable(declaration.revocable());
			if (declaration.isSemaphore()) {
				definition = definition.withPermits(declaration.permits());
			}
		}
		catch (IllegalArgumentException ex) {
			// LockDefinition's checks always give a message; another thrower might not
			String problem = (ex.getMessage() != null) ? ex.getMessage() : ex.toString();
			throw new InvalidLockDeclarationException(annotation, description, null, problem,
					"Give name a non-blank value and holdAtLeast a duration of at most 100 years");
		}
		return new LockOperation(declaration, specificMethod, userClass, parsed, definition, elementKey, kind, adapter,
				notAcquired);
	}

	private static <A extends java.lang.annotation.Annotation> @Nullable A findAnnotation(Method specificMethod,
			Method method, Class<A> type) {
		A annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, type);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
		}
		return annotation;
	}

	/**
	 * A read or write side belongs to the thread that took it (it cannot become a lease),
	 * so it cannot follow work that goes on after the method returns, nor be kept for a
	 * minimum time after the method ends: such a method would run, or go on running,
	 * without its lock.
	 */
	private static void checkThreadOwnedSide(LockDeclaration declaration, LockOperation.ReturnKind kind,
			Class<?> returnType, @Nullable Duration holdAtLeast, String description) {
		if (declaration.isSemaphore() || declaration.mode() == LockMode.EXCLUSIVE) {
			return;
		}
		String side = "mode = " + declaration.mode() + " holds the "
				+ declaration.mode().name().toLowerCase(java.util.Locale.ROOT)
				+ " side of a read/write lock, which belongs to the thread that took it";
		if (kind != LockOperation.ReturnKind.SYNCHRONOUS) {
			String work = (kind == LockOperation.ReturnKind.SUSPENDING) ? "it is a Kotlin suspend function"
					: "it returns " + returnType.getName();
			throw new InvalidLockDeclarationException(declaration.annotation(), description, null,
					side + ", and " + work + ", whose work goes on after the method returns, possibly on other "
							+ "threads: the side cannot be handed over, so that work would run without its lock",
					"Make the method synchronous (return the result itself), or use mode = EXCLUSIVE (the default), "
							+ "which follows the work until it ends");
		}
		if (holdAtLeast != null) {
			throw new InvalidLockDeclarationException(declaration.annotation(), description, null,
					side + ", and holdAtLeast would have the library keep it after the method ends, on another "
							+ "thread, which a thread-owned side cannot do",
					"Remove holdAtLeast, or use mode = EXCLUSIVE (the default) to hold a lock at least a minimum time");
		}
	}

	private String name(LockDeclaration declaration, Method method, Class<?> userClass, String description) {
		String name = resolvePlaceholders(declaration.name(), "name", declaration.annotation(), description).trim();
		return name.isEmpty() ? userClass.getSimpleName() + "." + method.getName() : name;
	}

	/**
	 * The wait: {@code waitAtMost} or {@code waitMs}, never both; {@code null} for the
	 * registry's default.
	 */
	private @Nullable Duration maxWait(LockDeclaration declaration, String description) {
		String annotation = declaration.annotation();
		Duration waitAtMost = duration(declaration.waitAtMost(), "waitAtMost", annotation, description);
		if (declaration.waitMs() < -1) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"waitMs must be -1 (the default wait), 0 (one attempt) or positive, but was "
							+ declaration.waitMs(),
					"Set waitMs to -1, 0 or a positive number of milliseconds");
		}
		if (waitAtMost != null && declaration.waitMs() != -1) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"both waitAtMost (\"" + declaration.waitAtMost() + "\") and waitMs (" + declaration.waitMs()
							+ ") are set, and only one can say how long to wait",
					"Keep one of them: waitAtMost = \"2s\" (a duration or a ${...} placeholder) or waitMs = 2000");
		}
		if (waitAtMost != null) {
			return waitAtMost;
		}
		return (declaration.waitMs() == -1) ? null : Duration.ofMillis(declaration.waitMs());
	}

	/**
	 * A duration attribute: {@code 30s}, {@code 500ms}, {@code PT30S}, or a placeholder
	 * resolving to one; {@code null} when empty.
	 */
	private @Nullable Duration duration(String value, String attribute, String annotation, String description) {
		String resolved = resolvePlaceholders(value, attribute, annotation, description).trim();
		if (resolved.isEmpty()) {
			return null;
		}
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(resolved);
		}
		catch (RuntimeException ex) {
			throw new InvalidLockDeclarationException(annotation, description, null, attribute + " \"" + value + "\""
					+ (resolved.equals(value) ? "" : " (resolved to \"" + resolved + "\")") + " is not a duration",
					"Write " + attribute + " as a duration such as \"30s\", \"500ms\", \"2m\" or \"PT30S\"");
		}
		if (duration.isNegative()) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					attribute + " \"" + value + "\" is negative (" + duration + ")",
					"Give " + attribute + " a duration of zero or more");
		}
		return duration;
	}

	private String resolvePlaceholders(String value, String attribute, String annotation, String description) {
		if (value.isEmpty() || !(this.beanFactory instanceof ConfigurableBeanFactory configurable)) {
			return value;
		}
		String resolved;
		try {
			resolved = configurable.resolveEmbeddedValue(value);
		}
		catch (IllegalArgumentException ex) {
			throw unresolvable(annotation, attribute, value, description, ex.getMessage());
		}
		// Without a strict placeholder configurer, Spring leaves what it cannot resolve
		// as it was
		if (resolved != null && resolved.contains("${")) {
			throw unresolvable(annotation, attribute, value, description, "no property gives it a value");
		}
		return (resolved != null) ? resolved : "";
	}

	private static InvalidLockDeclarationException unresolvable(String annotation, String attribute, String value,
			String description, @Nullable String why) {
		return new InvalidLockDeclarationException(annotation, description, null,
				attribute + " \"" + value + "\" cannot be resolved: " + why,
				"Define the property it refers to, or give the placeholder a default, e.g. ${app.lock-wait:2s}");
	}

	/**
	 * What the call does when the lock is not acquired: a fallback method if one is
	 * named, else skip or throw. Checked here so that a fallback that cannot be called,
	 * or a skip that has nothing to return, fails startup.
	 */
	private static NotAcquired notAcquired(LockDeclaration declaration, Method method, Class<?> userClass,
			Class<?> returnType, LockOperation.ReturnKind kind, String description) {
		String annotation = declaration.annotation();
		String fallback = declaration.fallback().trim();
		if (!fallback.isEmpty()) {
			if (kind == LockOperation.ReturnKind.SUSPENDING) {
				throw new InvalidLockDeclarationException(annotation, description, null,
						"fallback is not supported on a Kotlin suspend function",
						"Remove fallback and catch LockAcquisitionException around the call");
			}
			return FallbackMethods.find(fallback, method, userClass, returnType, annotation, description);
		}
		if (declaration.onLocked() == OnLocked.SKIP) {
			if (kind == LockOperation.ReturnKind.SUSPENDING) {
				throw new InvalidLockDeclarationException(annotation, description, null,
						"onLocked = SKIP is not supported on a Kotlin suspend function",
						"Remove onLocked and catch LockAcquisitionException around the call");
			}
			if (returnType.isPrimitive() && returnType != void.class) {
				throw new InvalidLockDeclarationException(annotation, description, null,
						"onLocked = SKIP needs something to return when the method is skipped, but it returns "
								+ returnType.getName() + ", which has no empty value",
						"Return a wrapper type ("
								+ org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(returnType)
									.getSimpleName()
								+ ", null when skipped), an Optional, or void; or name a fallback method");
			}
			NotAcquired.Skip skip = new NotAcquired.Skip(returnType);
			try {
				skip.nothing();
			}
			catch (RuntimeException ex) {
				throw new InvalidLockDeclarationException(annotation, description, null,
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
	private static void checkModifiers(Method method, String annotation, String description) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers)) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"the method is private, and Spring's proxies cannot intercept private methods: it would run without its lock",
					"Make the method public (or protected) and call it through the bean, not through 'this'");
		}
		if (Modifier.isStatic(modifiers)) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"the method is static, and Spring's proxies only intercept calls on a bean: it would run without its lock",
					"Make the method an instance method of the bean, or lock in code with ZkLockTemplate");
		}
	}

	/**
	 * A final class cannot get a class-based proxy, and when the auto-proxy creator is
	 * set to class-based proxies Spring would fail to create one with a message that
	 * names no method: say which method cannot be locked first. Everything that depends
	 * on the proxy Spring actually makes is checked on that proxy
	 * ({@link LockedBeanVerifier}).
	 */
	private void checkFinalClass(LockOperation operation) {
		Class<?> targetClass = operation.targetClass();
		if (Modifier.isFinal(targetClass.getModifiers()) && !targetClass.isInterface()
				&& !Proxy.isProxyClass(targetClass) && autoProxyCreatorProxiesClasses()) {
			throw new InvalidLockDeclarationException(operation.annotation(), operation.describeMethod(), null,
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
	 * How the method's work ends. Types whose work may run after the method returned, and
	 * that the lock cannot follow, fail: the work would run without its lock.
	 */
	private static LockOperation.ReturnKind returnKind(Method method, Class<?> type, @Nullable ReactiveAdapter adapter,
			String annotation, String description) {
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
			throw new InvalidLockDeclarationException(annotation, description, null,
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
	 * Deferred types of libraries Spring adapts only when Reactor is present (or not at
	 * all): without an adapter, their work would run after the lock is gone.
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
