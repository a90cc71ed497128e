package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.core.LockAcquisitionException;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds and checks the fallback method a {@code @DistributedLock} or
 * {@code @DistributedSemaphore} names: a method of the same class (or a superclass), of
 * any visibility, other than the locked method itself, taking the locked method's
 * parameters (or wider types), optionally followed by the
 * {@link LockAcquisitionException}, returning what the locked method may return, and not
 * locked itself: it is called on the target object, where no annotation of its own would
 * apply.
 */
final class FallbackMethods {

	private FallbackMethods() {
	}

	/**
	 * Find the fallback of a locked method.
	 * @return the fallback, preferring the one that takes the failure
	 * @throws InvalidLockDeclarationException if there is none that can be called in its
	 * place
	 */
	static NotAcquired.Fallback find(String name, Method method, Class<?> userClass, Class<?> returnType,
			String annotation, String description) {
		List<Method> named = new ArrayList<>();
		// The locked method is never its own fallback: called on the target, its body
		// would run unlocked
		ReflectionUtils.doWithMethods(userClass, named::add, (candidate) -> candidate.getName().equals(name)
				&& !candidate.isBridge() && !isTheLockedMethod(candidate, method, userClass));
		if (named.isEmpty() && name.equals(method.getName())
				&& ReflectionUtils.findMethod(userClass, name, method.getParameterTypes()) != null) {
			throw invalid(annotation, description, name, "its fallback '" + name + "' is the locked method itself, "
					+ "which would then run without its lock", "Name another method as the fallback");
		}
		if (named.isEmpty()) {
			throw invalid(annotation, description, name,
					"there is no method named '" + name + "' in " + userClass.getName(),
					"Declare " + signature(name, method, returnType, true) + " or "
							+ signature(name, method, returnType, false) + " in " + userClass.getSimpleName()
							+ ", or fix the name in fallback");
		}
		Class<?>[] parameters = resolvedParameters(method, userClass);
		Method withFailure = null;
		Method plain = null;
		for (Method candidate : named) {
			Class<?>[] candidateParameters = resolvedParameters(candidate, userClass);
			if (candidateParameters.length == parameters.length && accepts(candidateParameters, parameters)) {
				plain = (plain != null) ? plain : candidate;
			}
			else if (candidateParameters.length == parameters.length + 1 && accepts(candidateParameters, parameters)
					&& candidateParameters[parameters.length].isAssignableFrom(LockAcquisitionException.class)) {
				withFailure = (withFailure != null) ? withFailure : candidate;
			}
		}
		Method fallback = (withFailure != null) ? withFailure : plain;
		if (fallback == null) {
			throw invalid(annotation, description, name, "its fallback '" + name
					+ "' must take the same parameters as the method (" + simpleNames(method.getParameterTypes())
					+ "), optionally followed by a LockAcquisitionException, but " + userClass.getSimpleName()
					+ " has only " + named.stream().map(FallbackMethods::describe).collect(Collectors.joining(", ")),
					"Declare " + signature(name, method, returnType, true));
		}
		Class<?> fallbackReturns = ResolvableType.forMethodReturnType(fallback, userClass)
			.resolve(fallback.getReturnType());
		if (!returnsCompatibly(returnType, fallbackReturns)) {
			throw invalid(annotation, description, name,
					"its fallback " + describe(fallback) + " returns " + fallbackReturns.getName()
							+ ", which the method, returning " + returnType.getName() + ", cannot return",
					"Make " + name + " return " + returnType.getSimpleName());
		}
		String own = AnnotatedElementUtils.hasAnnotation(fallback, DistributedLock.class) ? LockDeclaration.LOCK
				: AnnotatedElementUtils.hasAnnotation(fallback, DistributedSemaphore.class) ? LockDeclaration.SEMAPHORE
						: null;
		if (own != null) {
			// Called on the target, not through the proxy: its own lock would silently
			// not be taken
			throw invalid(annotation, description, name,
					"its fallback " + describe(fallback) + " has its own " + own + ", which would not apply: "
							+ "the fallback is called on the target object, not through the proxy, so it would run "
							+ "without that lock",
					"Remove " + own + " from " + name + " and lock what it needs in code (ZkLockTemplate), "
							+ "or call another bean's locked method from it");
		}
		return new NotAcquired.Fallback(fallback, fallback == withFailure);
	}

	private static boolean isTheLockedMethod(Method candidate, Method method, Class<?> userClass) {
		return candidate.equals(method) || AopUtils.getMostSpecificMethod(candidate, userClass)
			.equals(AopUtils.getMostSpecificMethod(method, userClass));
	}

	/**
	 * The parameter types as the target class sees them, generics resolved.
	 */
	private static Class<?>[] resolvedParameters(Method method, Class<?> userClass) {
		Class<?>[] types = new Class<?>[method.getParameterCount()];
		for (int i = 0; i < types.length; i++) {
			types[i] = ResolvableType.forMethodParameter(method, i, userClass).resolve(method.getParameterTypes()[i]);
		}
		return types;
	}

	/**
	 * Whether a fallback's leading parameters take the locked method's arguments: the
	 * same types or wider ones.
	 */
	private static boolean accepts(Class<?>[] candidate, Class<?>[] arguments) {
		for (int i = 0; i < arguments.length; i++) {
			if (!ClassUtils.isAssignable(candidate[i], arguments[i])) {
				return false;
			}
		}
		return true;
	}

	/**
	 * A void method's caller expects nothing, so any fallback does; otherwise the
	 * fallback's result must be something the method could have returned.
	 */
	private static boolean returnsCompatibly(Class<?> returnType, Class<?> fallbackReturns) {
		if (returnType == void.class || returnType == Void.class) {
			return true;
		}
		if (fallbackReturns == void.class) {
			return false;
		}
		return ClassUtils.isAssignable(returnType, fallbackReturns);
	}

	private static InvalidLockDeclarationException invalid(String annotation, String description, String name,
			String problem, String action) {
		return new InvalidLockDeclarationException(annotation, description, null,
				problem.startsWith("its") ? problem : "its fallback '" + name + "' cannot be called: " + problem,
				action);
	}

	private static String signature(String name, Method method, Class<?> returnType, boolean withFailure) {
		String parameters = simpleNames(method.getParameterTypes());
		if (withFailure) {
			parameters = parameters.isEmpty() ? "LockAcquisitionException ex"
					: parameters + ", LockAcquisitionException ex";
		}
		return returnType.getSimpleName() + " " + name + "(" + parameters + ")";
	}

	private static String describe(@Nullable Method method) {
		if (method == null) {
			return "none";
		}
		return method.getName() + "(" + simpleNames(method.getParameterTypes()) + ")";
	}

	private static String simpleNames(Class<?>[] types) {
		return Arrays.stream(types).map(Class::getSimpleName).collect(Collectors.joining(", "));
	}

}
