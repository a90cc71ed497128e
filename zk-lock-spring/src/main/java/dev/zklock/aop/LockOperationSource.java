package dev.zklock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the lock operation of a method called on a target class, as Spring's
 * {@code AbstractFallbackCacheOperationSource} finds cache operations: the declaration on
 * the method itself, else on the interface method it implements or the superclass method
 * it overrides, parsed by the {@link LockOperationParser} once per method and target
 * class and cached, an unlocked method included.
 *
 * <p>
 * Parsing checks the declaration, so a declaration that cannot work fails when its
 * operation is first asked for: at startup, when {@link LockedBeanVerifier} asks for
 * every locked operation of a bean's class ({@link #lockedOperations(Class)}), before the
 * bean is proxied.
 */
final class LockOperationSource implements ProxiedMethodSource {

	private static final Object NONE = new Object();

	private final LockOperationParser parser;

	private final Map<MethodClassKey, Object> operations = new ConcurrentHashMap<>(256);

	/** The locked operations of each class looked at so far; empty if it has none. */
	private final Map<Class<?>, List<LockOperation>> operationsByClass = new ConcurrentHashMap<>(256);

	LockOperationSource(LockOperationParser parser) {
		this.parser = parser;
	}

	/**
	 * Return whether a class may have locked methods: {@code false} only when it surely
	 * has none. Cheap, and never throws: the pointcut's class filter.
	 * @param targetClass the class
	 * @return whether its methods need to be looked at
	 */
	@Override
	public boolean isCandidateClass(Class<?> targetClass) {
		return this.parser.isCandidateClass(targetClass);
	}

	/**
	 * Return the lock operation of a method called on a target class.
	 * @param method the method, possibly an interface method
	 * @param targetClass the target class, if known
	 * @return the operation, or {@code null} if the method is not locked
	 * @throws InvalidLockDeclarationException if the declaration cannot work
	 */
	@Override
	public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.operations.get(cacheKey);
		if (cached == null) {
			LockOperation operation = computeOperation(method, targetClass);
			cached = (operation != null) ? operation : NONE;
			this.operations.put(cacheKey, cached);
		}
		return (cached != NONE) ? (LockOperation) cached : null;
	}

	/**
	 * Return the operations of every locked method of a class, parsing (and so checking)
	 * each once.
	 * @param targetClass the class
	 * @return the operations, empty if the class has no locked method
	 * @throws InvalidLockDeclarationException if a declaration cannot work
	 */
	List<LockOperation> lockedOperations(Class<?> targetClass) {
		List<LockOperation> known = this.operationsByClass.get(targetClass);
		if (known != null) {
			return known;
		}
		List<LockOperation> found = new ArrayList<>();
		if (isCandidateClass(targetClass)) {
			// A JDK proxy (a repository, an HTTP interface client) is locked through its
			// interfaces
			Iterable<Class<?>> classes = Proxy.isProxyClass(targetClass)
					? ClassUtils.getAllInterfacesForClassAsSet(targetClass) : List.of(targetClass);
			for (Class<?> candidate : classes) {
				ReflectionUtils.doWithMethods(candidate, (method) -> {
					LockOperation operation = getOperation(method, targetClass);
					if (operation != null && !found.contains(operation)) {
						found.add(operation);
					}
				}, ReflectionUtils.USER_DECLARED_METHODS);
			}
		}
		List<LockOperation> operations = List.copyOf(found);
		this.operationsByClass.put(targetClass, operations);
		return operations;
	}

	private @Nullable LockOperation computeOperation(Method method, @Nullable Class<?> targetClass) {
		Class<?> userClass = (targetClass != null) ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
		if (Proxy.isProxyClass(userClass)) {
			// The target is itself a JDK proxy: its interface method is the declaration
			userClass = method.getDeclaringClass();
		}
		Method specificMethod = AopUtils.getMostSpecificMethod(method, userClass);
		return this.parser.parse(specificMethod, method, userClass);
	}

}
