package dev.zklock.aop;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockPaths;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@code @DistributedLock} method while holding the lock for its keys, or a
 * {@code @DistributedSemaphore} method while holding a permit of its key: evaluates the
 * key expression (one key, or for a lock a collection or array of them), then lets the
 * {@link ZkLockTemplate} hold what the operation's definition takes (the exclusive lock,
 * a read or write side, a permit) for as long as the method's work lasts: until it
 * returns, until the {@code CompletionStage} it returns completes, or, for a reactive
 * return type, from subscription until the stream terminates or is cancelled. When the
 * lock is not acquired, the operation's {@link NotAcquired} decides: throw, skip, or call
 * the fallback.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockOperationSource operationSource;

	private final LockKeyExpressionEvaluator evaluator;

	private final Supplier<ZkLockTemplate> template;

	private final @Nullable ReactiveLocking reactiveLocking;

	/**
	 * @param template supplies the template, resolved on first use so that the advisor
	 * can be created before the ZooKeeper client
	 */
	DistributedLockInterceptor(LockOperationSource operationSource, LockKeyExpressionEvaluator evaluator,
			Supplier<ZkLockTemplate> template) {
		this.operationSource = operationSource;
		this.evaluator = evaluator;
		this.template = template;
		this.reactiveLocking = ReturnTypes.REACTOR_PRESENT ? new ReactiveLocking() : null;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operationSource.getOperation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		if (target == null) {
			throw new IllegalStateException(
					"Cannot lock " + invocation.getMethod() + ": the proxy has no target object");
		}
		Collection<String> keys = evaluateKeys(operation, invocation.getArguments(), target);
		ZkLockTemplate template = this.template.get();
		int maxKeys = template.getRegistry().getOptions().maxKeysPerCall();
		if (keys.size() > maxKeys) {
			throw invalidKey(operation, "evaluated to " + keys.size() + " distinct keys, but one call may lock at most "
					+ maxKeys + " (zklock.lock.max-keys-per-call); nothing was locked");
		}
		return switch (operation.returnKind()) {
			case SYNCHRONOUS -> synchronous(template, operation, keys, invocation, target);
			case COMPLETION_STAGE -> completionStage(template, operation, keys, invocation, target);
			case REACTIVE ->
				reactive(operation).lock(template, operation, keys, (ProxyMethodInvocation) invocation, target);
			case SUSPENDING -> {
				@Nullable Object[] args = invocation.getArguments();
				Object locked = reactive(operation).lock(template, operation, keys, (ProxyMethodInvocation) invocation,
						target);
				Object continuation = Objects.requireNonNull(args[args.length - 1],
						"a suspend function's last argument is its continuation");
				yield SuspendingLocking.await((Publisher<?>) locked, continuation);
			}
		};
	}

	private static @Nullable Object synchronous(ZkLockTemplate template, LockOperation operation,
			Collection<String> keys, MethodInvocation invocation, Object target) throws Throwable {
		if (operation.notAcquired() == NotAcquired.THROW) {
			return template.<@Nullable Object, Throwable>execute(operation.definition(), keys,
					() -> notDeferred(operation, invocation.proceed()));
		}
		Started started = new Started();
		try {
			return template.<@Nullable Object, Throwable>execute(operation.definition(), keys, () -> {
				started.started = true;
				return notDeferred(operation, invocation.proceed());
			});
		}
		catch (LockAcquisitionException ex) {
			if (started.started) {
				throw ex;
			}
			return operation.notAcquired().handle(ex, operation, target, invocation.getArguments());
		}
	}

	private static @Nullable Object completionStage(ZkLockTemplate template, LockOperation operation,
			Collection<String> keys, MethodInvocation invocation, Object target) throws Throwable {
		Started started = new Started();
		try {
			return template.<@Nullable CompletionStage<?>, Throwable>executeAsync(operation.definition(), keys, () -> {
				started.started = true;
				return (CompletionStage<?>) invocation.proceed();
			});
		}
		catch (LockAcquisitionException ex) {
			if (started.started) {
				throw ex;
			}
			return operation.notAcquired().handle(ex, operation, target, invocation.getArguments());
		}
	}

	/**
	 * A method declared to return a plain value (an {@code Object}, a type variable) may
	 * still return work that runs later; the lock would be gone by then. Say so rather
	 * than let it run unlocked.
	 */
	private static @Nullable Object notDeferred(LockOperation operation, @Nullable Object result) {
		if (result == null || !ReturnTypes.isPendingWork(result)) {
			return result;
		}
		throw new IllegalStateException(operation.describeMethod() + " is declared to return "
				+ operation.method().getGenericReturnType().getTypeName() + " but returned a "
				+ result.getClass().getName() + ", whose work would run after its lock is released; declare "
				+ "the method to return CompletableFuture, CompletionStage, Mono or Flux so that the lock follows the work");
	}

	private ReactiveLocking reactive(LockOperation operation) {
		if (this.reactiveLocking == null) {
			throw new IllegalStateException("Reactor is needed for " + operation.describeMethod());
		}
		return this.reactiveLocking;
	}

	/**
	 * Whether the method was called: a lock failure from inside it is the method's own,
	 * not this lock's, and must not skip it or call its fallback.
	 */
	private static final class Started {

		boolean started;

	}

	/**
	 * The keys of one call, in lock order: one key, or each element of a collection or
	 * array, duplicates folded.
	 */
	private Collection<String> evaluateKeys(LockOperation operation, @Nullable Object[] args, Object target) {
		Object value = this.evaluator.evaluate(operation, args, target);
		try {
			return keys(value, operation.declaration().isSemaphore());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(operation.annotation() + " key expression \"" + operation.keyExpression()
					+ "\" on " + operation.describeMethod() + " " + ex.getMessage(), ex);
		}
	}

	/**
	 * The keys a key expression's value stands for, in lock order: the value as one key,
	 * or each element of a collection or array, duplicates folded; the rules of a call,
	 * and of a constant expression at startup ({@link LockOperationParser}).
	 * @param value the value
	 * @param semaphore whether the keys are a semaphore's, which takes one key
	 * @return the keys
	 * @throws IllegalArgumentException whose message says what is wrong with the value,
	 * to follow the expression and its method: "evaluated to an empty collection; ..."
	 */
	static Collection<String> keys(@Nullable Object value, boolean semaphore) {
		if (value instanceof Collection<?> || (value != null && value.getClass().isArray())) {
			List<Object> elements = new ArrayList<>();
			if (value instanceof Collection<?> collection) {
				elements.addAll(collection);
			}
			else {
				elements.addAll(asList(value));
			}
			if (elements.isEmpty()) {
				throw new IllegalArgumentException("evaluated to an empty collection; there is nothing to lock");
			}
			SortedSet<String> keys = new TreeSet<>();
			for (Object element : elements) {
				keys.add(validKey(element));
			}
			if (keys.size() > 1 && semaphore) {
				throw new IllegalArgumentException(
						"evaluated to several keys " + keys + "; a semaphore's permit is taken on one key");
			}
			return keys;
		}
		return List.of(validKey(value));
	}

	private static List<?> asList(Object array) {
		Object[] elements = new Object[Array.getLength(array)];
		for (int i = 0; i < elements.length; i++) {
			elements[i] = Array.get(array, i);
		}
		return Arrays.asList(elements);
	}

	private static String validKey(@Nullable Object value) {
		if (value == null || value.toString().isBlank()) {
			throw new IllegalArgumentException(
					"evaluated to " + ((value == null) ? "null" : "'" + LockPaths.printable(value.toString()) + "'")
							+ "; a lock key must not be null or blank");
		}
		String key = value.toString();
		try {
			LockPaths.validateKey(key);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("gave an invalid key: " + ex.getMessage(), ex);
		}
		return key;
	}

	private static IllegalArgumentException invalidKey(LockOperation operation, String problem) {
		return new IllegalArgumentException(operation.annotation() + " key expression \"" + operation.keyExpression()
				+ "\" on " + operation.describeMethod() + " " + problem);
	}

}
