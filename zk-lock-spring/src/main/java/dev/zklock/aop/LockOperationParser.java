package dev.zklock.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.annotation.OnLost;
import dev.zklock.core.LockPaths;
import dev.zklock.template.LockDefinition;
import dev.zklock.template.LockMode;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.InlineList;
import org.springframework.expression.spel.ast.Literal;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Turns the {@code @DistributedLock} or {@code @DistributedSemaphore} of a method into a
 * {@link LockOperation}, as Spring's {@code SpringCacheAnnotationParser} turns
 * {@code @Cacheable} and its siblings into cache operations: both annotations go through
 * the same resolution (placeholders, durations, the key expression, the return type, the
 * busy strategy) and the same checks; only what they take differs. Where to look for the
 * annotation, and caching, is {@link LockOperationSource}'s job.
 *
 * <p>
 * A declaration that cannot work raises an {@link InvalidLockDeclarationException} naming
 * the method: a method no proxy can intercept (private or static), a return type whose
 * work outlives the call in a way the lock cannot follow (for a read or write side, any
 * work that outlives the call), a wait below -1, a key expression that does not parse or
 * cannot evaluate ({@link KeyExpressionChecker}), permits below 1, and both annotations
 * on one method. What depends on the bean and its proxy is checked by
 * {@link LockedBeanVerifier}.
 */
final class LockOperationParser {

	private static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(DistributedLock.class,
			DistributedSemaphore.class);

	private final LockKeyExpressionEvaluator evaluator;

	private final KeyExpressionChecker checker;

	private final @Nullable BeanFactory beanFactory;

	/**
	 * Create a parser.
	 * @param beanFactory resolves placeholders in attributes and {@code @bean} references
	 * in key expressions, if any
	 */
	LockOperationParser(@Nullable BeanFactory beanFactory) {
		this.evaluator = new LockKeyExpressionEvaluator(beanFactory);
		this.checker = new KeyExpressionChecker(beanFactory);
		this.beanFactory = beanFactory;
	}

	/**
	 * Return whether a class may have locked methods: {@code false} only when it surely
	 * has none. Cheap, and never throws.
	 * @param targetClass the class
	 * @return whether its methods need to be looked at
	 */
	boolean isCandidateClass(Class<?> targetClass) {
		return AnnotationUtils.isCandidateClass(targetClass, ANNOTATIONS);
	}

	/**
	 * Parse and check the lock annotation of a method.
	 * @param specificMethod the method as declared on the target class
	 * @param method the method called, possibly an interface method, where the annotation
	 * is looked for when the specific method has none
	 * @param userClass the target class
	 * @return the operation, or {@code null} if the method is not locked
	 * @throws InvalidLockDeclarationException if the declaration cannot work
	 */
	@Nullable LockOperation parse(Method specificMethod, Method method, Class<?> userClass) {
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
			checkConstant(spel, declaration.isSemaphore(), annotation, description, expression);
		}
		// What a generic method returns on this class, not its erasure
		Class<?> returnType = ResolvableType.forMethodReturnType(specificMethod, userClass)
			.resolve(specificMethod.getReturnType());
		boolean suspending = ReturnTypes.isSuspending(specificMethod);
		ReactiveAdapter adapter = ReturnTypes.reactiveAdapter(returnType, suspending);
		LockOperation.ReturnKind kind = suspending ? LockOperation.ReturnKind.SUSPENDING
				: ReturnTypes.returnKind(specificMethod, returnType, adapter, annotation, description);
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
		NotAcquired notAcquired = NotAcquired.of(declaration, specificMethod, userClass, returnType, kind, description);
		LockDefinition definition;
		try {
			definition = LockDefinition.named(name(declaration, specificMethod, userClass, description))
				.withWaitAtMost(waitAtMost(declaration, description))
				.withHoldAtLeast(holdAtLeast)
				.withBusyOutcome(notAcquired.busyOutcome())
				.withMode(declaration.mode())
				.withRevocable(declaration.revocable())
				.withStopOnLost(declaration.onLost() == OnLost.INTERRUPT);
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

	/**
	 * A key expression that is a constant (a literal, or an inline list of literals) has
	 * the same value at every call: evaluate it once, now, by the rules of a call, so
	 * that one that could never be a key ({@code "{}"}, {@code "'..'"}) fails startup
	 * rather than every call.
	 */
	private static void checkConstant(SpelExpression spel, boolean semaphore, String annotation, String description,
			String expression) {
		SpelNode ast = spel.getAST();
		if (!(ast instanceof Literal || (ast instanceof InlineList list && list.isConstant()))) {
			return;
		}
		Object value;
		try {
			value = spel.getValue();
		}
		catch (EvaluationException ex) {
			// Not constant after all: left to the call, which reports it with its
			// arguments
			return;
		}
		try {
			DistributedLockInterceptor.keys(value, semaphore);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockDeclarationException(annotation, description, expression,
					"it is a constant whose value, "
							+ ((value instanceof String text) ? "'" + LockPaths.printable(text) + "'"
									: LockPaths.printable(String.valueOf(value)))
							+ ", can never be locked: it " + ex.getMessage(),
					"Give a key that can be one ZooKeeper path segment, e.g. key = \"'inventory'\", or a list of "
							+ "them, e.g. key = \"{'stock:a', 'stock:b'}\"");
		}
	}

	private static <A extends Annotation> @Nullable A findAnnotation(Method specificMethod, Method method,
			Class<A> type) {
		A annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, type);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
		}
		return annotation;
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
				+ declaration.mode().name().toLowerCase(Locale.ROOT)
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
	private @Nullable Duration waitAtMost(LockDeclaration declaration, String description) {
		String annotation = declaration.annotation();
		Duration parsed = duration(declaration.waitAtMost(), "waitAtMost", annotation, description);
		if (declaration.waitMs() < -1) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"waitMs must be -1 (the default wait), 0 (one attempt) or positive, but was "
							+ declaration.waitMs(),
					"Set waitMs to -1, 0 or a positive number of milliseconds");
		}
		if (parsed != null && declaration.waitMs() != -1) {
			throw new InvalidLockDeclarationException(annotation, description, null,
					"both waitAtMost (\"" + declaration.waitAtMost() + "\") and waitMs (" + declaration.waitMs()
							+ ") are set, and only one can say how long to wait",
					"Keep one of them: waitAtMost = \"2s\" (a duration or a ${...} placeholder) or waitMs = 2000");
		}
		if (parsed != null) {
			return parsed;
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
		return resolvePlaceholders(this.beanFactory, value, attribute, annotation, description);
	}

	/**
	 * Resolve the placeholders of an attribute against the environment, strictly: one
	 * that nothing resolves fails, naming the method, the attribute and the value.
	 * @param beanFactory the bean factory whose embedded value resolvers resolve it, if
	 * any
	 * @param value the attribute's value
	 * @param attribute the attribute's name, for messages
	 * @param annotation the annotation, for messages
	 * @param description the method, for messages
	 * @return the resolved value
	 * @throws InvalidLockDeclarationException if a placeholder cannot be resolved
	 */
	static String resolvePlaceholders(@Nullable BeanFactory beanFactory, String value, String attribute,
			String annotation, String description) {
		if (value.isEmpty() || !(beanFactory instanceof ConfigurableBeanFactory configurable)) {
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

}
