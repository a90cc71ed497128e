package dev.zklock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LeaderOnly;
import dev.zklock.core.leader.LeaderGroup;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.Lifecycle;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Turns the {@code @LeaderOnly} of a method, or of its type, into a
 * {@link LeaderOperation}, as Spring's {@code SpringTransactionAnnotationParser} turns
 * {@code @Transactional} into a transaction attribute: the method's own annotation, else
 * its type's. On a {@link Lifecycle} type it makes a leader-only component, whose
 * {@code start()}, {@code stop()} and {@code isAutoStartup()} are taken from the context;
 * on any other type, every public method declared in it is leader work. Where to look,
 * and caching, is {@link LeaderOperationSource}'s job.
 *
 * <p>
 * A declaration that cannot work raises an {@link InvalidLockDeclarationException} naming
 * the method: a private or static method, a group that is empty, invalid or an
 * unresolvable placeholder, a return type whose work outlives the call, and one that has
 * nothing to return when the call is skipped. Shares with {@link LockOperationParser} the
 * resolution of placeholders and with {@code onLocked = SKIP} what a skipped call returns
 * ({@link NotAcquired.Skip}).
 */
final class LeaderOperationParser {

	private static final String ANNOTATION = LeaderOperation.ANNOTATION;

	private final @Nullable BeanFactory beanFactory;

	/**
	 * Create a parser.
	 * @param beanFactory resolves placeholders in the group, if any
	 */
	LeaderOperationParser(@Nullable BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Return whether a class may have leader-only methods: {@code false} only when it
	 * surely has none. Cheap, and never throws.
	 * @param targetClass the class
	 * @return whether its methods need to be looked at
	 */
	boolean isCandidateClass(Class<?> targetClass) {
		return AnnotationUtils.isCandidateClass(targetClass, LeaderOnly.class);
	}

	/**
	 * Parse and check the {@code @LeaderOnly} that applies to a method.
	 * @param specificMethod the method as declared on the target class
	 * @param method the method called, possibly an interface method, where the annotation
	 * is looked for when the specific method has none
	 * @param userClass the target class
	 * @return the operation, or {@code null} if no {@code @LeaderOnly} applies
	 * @throws InvalidLockDeclarationException if the declaration cannot work
	 */
	@Nullable LeaderOperation parse(Method specificMethod, Method method, Class<?> userClass) {
		if (specificMethod.isBridge() || specificMethod.isSynthetic()) {
			return null;
		}
		LeaderOnly onMethod = AnnotatedElementUtils.findMergedAnnotation(specificMethod, LeaderOnly.class);
		if (onMethod == null && specificMethod != method) {
			onMethod = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
		}
		if (onMethod != null) {
			return work(onMethod, specificMethod, userClass, false);
		}
		if (Lifecycle.class.isAssignableFrom(userClass)) {
			LeaderOnly onComponent = AnnotatedElementUtils.findMergedAnnotation(userClass, LeaderOnly.class);
			LeaderOperation.Kind kind = componentMethod(specificMethod);
			if (onComponent == null || kind == null) {
				return null;
			}
			String description = LockOperation.describe(specificMethod, userClass);
			return new LeaderOperation(group(onComponent, description), specificMethod, userClass, kind, true, null);
		}
		LeaderOnly onType = AnnotatedElementUtils.findMergedAnnotation(specificMethod.getDeclaringClass(),
				LeaderOnly.class);
		int modifiers = specificMethod.getModifiers();
		if (onType == null || !Modifier.isPublic(modifiers) || Modifier.isStatic(modifiers)
				|| ReflectionUtils.isObjectMethod(specificMethod) || ReflectionUtils.isEqualsMethod(specificMethod)
				|| ReflectionUtils.isHashCodeMethod(specificMethod)
				|| ReflectionUtils.isToStringMethod(specificMethod)) {
			return null;
		}
		return work(onType, specificMethod, userClass, true);
	}

	private LeaderOperation work(LeaderOnly leaderOnly, Method method, Class<?> userClass, boolean onType) {
		String description = LockOperation.describe(method, userClass);
		checkModifiers(method, description);
		String group = group(leaderOnly, description);
		// What a generic method returns on this class, not its erasure
		Class<?> returnType = ResolvableType.forMethodReturnType(method, userClass).resolve(method.getReturnType());
		String deferred = ReturnTypes.deferredWork(method, returnType);
		if (deferred != null) {
			throw new InvalidLockDeclarationException(ANNOTATION, description, null, deferred
					+ ", whose work goes on after the method returns, possibly on other threads; leader work belongs "
					+ "to the thread that runs it (interrupted on it when the term is lost, waited for until it "
					+ "returns when the leader hands over), so that work would go on unwatched, maybe while another "
					+ "instance leads",
					"Make the method synchronous (return the result itself, waiting for the work), or check "
							+ "ZkLeadership.isLeader(\"" + group + "\") in code and fence the work with the epoch");
		}
		NotAcquired.Skip skip = NotAcquired.Skip.of(returnType, ANNOTATION, description,
				ANNOTATION + " skips the call where this instance does not lead, and",
				"or check ZkLeadership.isLeader(\"" + group + "\") in code");
		return new LeaderOperation(group, method, userClass, LeaderOperation.Kind.WORK, onType, skip);
	}

	/**
	 * The group's name, placeholders resolved and checked as a group name.
	 */
	private String group(LeaderOnly leaderOnly, String description) {
		String value = leaderOnly.group();
		String group = LockOperationParser.resolvePlaceholders(this.beanFactory, value, "group", ANNOTATION,
				description);
		String written = "group \"" + value + "\"" + (group.equals(value) ? "" : " (resolved to \"" + group + "\")");
		if (group.isBlank()) {
			throw new InvalidLockDeclarationException(ANNOTATION, description, null,
					written + " is empty: it names no group to lead",
					"Name the group whose leader runs the method, e.g. group = \"billing\" or "
							+ "group = \"${app.billing-group}\"");
		}
		try {
			LeaderGroup.validateName(group);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockDeclarationException(ANNOTATION, description, null,
					written + " cannot be a group name: " + ex.getMessage(),
					"Give the group a name that can be one ZooKeeper path segment, e.g. group = \"billing\"");
		}
		return group;
	}

	/**
	 * Methods that no Spring proxy can intercept would run on every instance.
	 */
	private static void checkModifiers(Method method, String description) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers)) {
			throw new InvalidLockDeclarationException(ANNOTATION, description, null,
					"the method is private, and Spring's proxies cannot intercept private methods: it would run on "
							+ "every instance, leader or not",
					"Make the method public (or protected) and call it through the bean, not through 'this'");
		}
		if (Modifier.isStatic(modifiers)) {
			throw new InvalidLockDeclarationException(ANNOTATION, description, null,
					"the method is static, and Spring's proxies only intercept calls on a bean: it would run on "
							+ "every instance, leader or not",
					"Make the method an instance method of the bean, or run it through ZkLeadership.startWork");
		}
	}

	/**
	 * The lifecycle methods of a component that the context calls, and the leadership
	 * calls instead.
	 */
	private static LeaderOperation.@Nullable Kind componentMethod(Method method) {
		if (Modifier.isStatic(method.getModifiers())) {
			return null;
		}
		Class<?>[] parameters = method.getParameterTypes();
		return switch (method.getName()) {
			case "start" -> (parameters.length == 0) ? LeaderOperation.Kind.START : null;
			case "stop" -> (parameters.length == 0) ? LeaderOperation.Kind.STOP
					: (parameters.length == 1 && parameters[0] == Runnable.class)
							? LeaderOperation.Kind.STOP_WITH_CALLBACK : null;
			case "isAutoStartup" -> (parameters.length == 0 && method.getReturnType() == boolean.class)
					? LeaderOperation.Kind.AUTO_STARTUP : null;
			default -> null;
		};
	}

}
