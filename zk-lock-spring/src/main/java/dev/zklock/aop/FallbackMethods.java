package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds and checks the fallback method a {@code @DistributedLock} names: a method of the same
 * class (or a superclass), of any visibility, taking the locked method's parameters, optionally
 * followed by the {@link LockAcquisitionException}, and returning what the locked method may
 * return.
 */
final class FallbackMethods {

	private FallbackMethods() {
	}

	/**
	 * Find the fallback of a locked method.
	 * @return the fallback, preferring the one that takes the failure
	 * @throws InvalidLockDeclarationException if there is none that can be called in its place
	 */
	static NotAcquired.Fallback find(String name, Method method, Class<?> userClass, Class<?> returnType,
			String description) {
		List<Method> named = new ArrayList<>();
		ReflectionUtils.doWithMethods(userClass, named::add,
				(candidate) -> candidate.getName().equals(name) && !candidate.isBridge());
		if (named.isEmpty()) {
			throw invalid(description, name, "there is no method named '" + name + "' in " + userClass.getName(),
					"Declare " + signature(name, method, returnType, true) + " or "
							+ signature(name, method, returnType, false) + " in " + userClass.getSimpleName()
							+ ", or fix the name in fallback");
		}
		Class<?>[] parameters = method.getParameterTypes();
		Method withFailure = null;
		Method plain = null;
		for (Method candidate : named) {
			Class<?>[] candidateParameters = candidate.getParameterTypes();
			if (Arrays.equals(candidateParameters, parameters)) {
				plain = (plain != null) ? plain : candidate;
			}
			else if (candidateParameters.length == parameters.length + 1
					&& Arrays.equals(candidateParameters, 0, parameters.length, parameters, 0, parameters.length)
					&& candidateParameters[parameters.length].isAssignableFrom(LockAcquisitionException.class)) {
				withFailure = (withFailure != null) ? withFailure : candidate;
			}
		}
		Method fallback = (withFailure != null) ? withFailure : plain;
		if (fallback == null) {
			throw invalid(description, name,
					"its fallback '" + name + "' must take the same parameters as the method ("
							+ simpleNames(parameters) + "), optionally followed by a LockAcquisitionException, but "
							+ userClass.getSimpleName() + " has only "
							+ named.stream().map(FallbackMethods::describe).collect(Collectors.joining(", ")),
					"Declare " + signature(name, method, returnType, true));
		}
		Class<?> fallbackReturns = ResolvableType.forMethodReturnType(fallback, userClass)
			.resolve(fallback.getReturnType());
		if (!returnsCompatibly(returnType, fallbackReturns)) {
			throw invalid(description, name,
					"its fallback " + describe(fallback) + " returns " + fallbackReturns.getName()
							+ ", which the method, returning " + returnType.getName() + ", cannot return",
					"Make " + name + " return " + returnType.getSimpleName());
		}
		return new NotAcquired.Fallback(fallback, fallback == withFailure);
	}

	/**
	 * A void method's caller expects nothing, so any fallback does; otherwise the fallback's
	 * result must be something the method could have returned.
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

	private static InvalidLockDeclarationException invalid(String description, String name, String problem,
			String action) {
		return new InvalidLockDeclarationException(description, null,
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
