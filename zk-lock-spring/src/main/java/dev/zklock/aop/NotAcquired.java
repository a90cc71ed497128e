package dev.zklock.aop;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.OnLocked;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockAcquisitionException.Reason;
import dev.zklock.template.LockDefinition.BusyOutcome;

import org.springframework.core.CollectionFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What a locked call does when its lock is not acquired: throw, skip the method (busy
 * only), or call a fallback method. Decided and checked once per method, at startup.
 */
abstract sealed class NotAcquired {

	private static final Log logger = LogFactory.getLog(NotAcquired.class);

	/** Throw the exception: the default. */
	static final NotAcquired THROW = new Throw();

	/**
	 * Return what the call returns instead of the method's result, or throw.
	 * @param failure why the lock was not acquired
	 * @param operation the operation
	 * @param target the target object
	 * @param args the call's arguments
	 * @return the call's result
	 * @throws Throwable the failure, or what a fallback throws
	 */
	abstract @Nullable Object handle(LockAcquisitionException failure, LockOperation operation, Object target,
			@Nullable Object[] args) throws Throwable;

	/**
	 * Return how a busy lock is counted in metrics.
	 * @return the outcome of a busy lock
	 */
	abstract BusyOutcome busyOutcome();

	/**
	 * Decide what a method's call does when its lock is not acquired: a fallback method
	 * if one is named, else skip or throw. Checked here so that a fallback that cannot be
	 * called, or a skip that has nothing to return, fails startup.
	 * @param declaration the method's declaration
	 * @param method the method, as declared on the target class
	 * @param userClass the target class
	 * @param returnType the method's return type, resolved on the target class
	 * @param kind how the method's work ends
	 * @param description the method, for messages
	 * @return what the call does
	 * @throws InvalidLockDeclarationException if it cannot be done
	 */
	static NotAcquired of(LockDeclaration declaration, Method method, Class<?> userClass, Class<?> returnType,
			LockOperation.ReturnKind kind, String description) {
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
			return Skip.of(returnType, annotation, description, "onLocked = SKIP", "or name a fallback method");
		}
		return THROW;
	}

	/**
	 * Whether ZooKeeper was not there for the wait: not connected, or no reply.
	 */
	static boolean isUnavailable(LockAcquisitionException failure) {
		return failure.getReason() == Reason.NOT_CONNECTED || failure.getReason() == Reason.NO_REPLY;
	}

	private static final class Throw extends NotAcquired {

		@Override
		@Nullable Object handle(LockAcquisitionException failure, LockOperation operation, Object target,
				@Nullable Object[] args) {
			throw failure;
		}

		@Override
		BusyOutcome busyOutcome() {
			return BusyOutcome.TIMEOUT;
		}

	}

	/**
	 * Skip a busy method and return nothing of its return type; also while ZooKeeper is
	 * unavailable (no connection, no reply), which the session tracker logs once per
	 * connection state change and the template counts apart: a stack trace at every call
	 * of a scheduled job would say nothing more. Any other failure is thrown.
	 */
	static final class Skip extends NotAcquired {

		private final Class<?> returnType;

		Skip(Class<?> returnType) {
			this.returnType = returnType;
		}

		/**
		 * Return how to skip a method of a return type, checked: a skipped call that has
		 * nothing to return fails startup.
		 * @param returnType the method's return type, resolved on the target class
		 * @param annotation the annotation, for messages
		 * @param description the method, for messages
		 * @param skipper what skips the call, to begin a sentence:
		 * {@code onLocked = SKIP}
		 * @param otherwise the other way out, to end the action: {@code or name a
		 * fallback method}
		 * @return the skip
		 * @throws InvalidLockDeclarationException if nothing can be returned
		 */
		static Skip of(Class<?> returnType, String annotation, String description, String skipper, String otherwise) {
			if (returnType.isPrimitive() && returnType != void.class) {
				throw new InvalidLockDeclarationException(annotation, description, null,
						skipper + " needs something to return when the method is skipped, but it returns "
								+ returnType.getName() + ", which has no empty value",
						"Return a wrapper type (" + ClassUtils.resolvePrimitiveIfNecessary(returnType).getSimpleName()
								+ ", null when skipped), an Optional, or void; " + otherwise);
			}
			Skip skip = new Skip(returnType);
			try {
				skip.nothing();
			}
			catch (RuntimeException ex) {
				throw new InvalidLockDeclarationException(annotation, description, null,
						skipper + " needs an empty " + returnType.getName() + " to return when the method is "
								+ "skipped, and none can be made (" + ex.getMessage() + ")",
						"Declare the return type as an interface such as List, Set, Queue or Map, or Optional, "
								+ otherwise);
			}
			return skip;
		}

		@Override
		@Nullable Object handle(LockAcquisitionException failure, LockOperation operation, Object target,
				@Nullable Object[] args) {
			boolean busy = failure.getReason().isBusy();
			if (!busy && !isUnavailable(failure)) {
				throw failure;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Skipped " + operation.describeMethod() + ": lock '" + operation.definition().name()
						+ "' is " + (busy ? "busy" : "unavailable") + " (" + failure.getMessage() + ")");
			}
			return nothing();
		}

		/**
		 * What a skipped call returns: for a reactive type the caller's adapter turns
		 * {@code null} into an empty publisher.
		 */
		@Nullable Object nothing() {
			Class<?> type = this.returnType;
			if (type == Optional.class) {
				return Optional.empty();
			}
			if (type == OptionalInt.class) {
				return OptionalInt.empty();
			}
			if (type == OptionalLong.class) {
				return OptionalLong.empty();
			}
			if (type == OptionalDouble.class) {
				return OptionalDouble.empty();
			}
			if (CompletionStage.class.isAssignableFrom(type)) {
				return CompletableFuture.completedFuture(null);
			}
			if (type == Queue.class || type == Deque.class) {
				// CollectionFactory makes neither
				return new ArrayDeque<>(0);
			}
			if (type == Iterable.class) {
				return List.of();
			}
			if (Collection.class.isAssignableFrom(type)) {
				return CollectionFactory.createCollection(type, 0);
			}
			if (Map.class.isAssignableFrom(type)) {
				return CollectionFactory.createMap(type, 0);
			}
			if (type.isArray()) {
				return Array.newInstance(type.getComponentType(), 0);
			}
			return null;
		}

		@Override
		BusyOutcome busyOutcome() {
			return BusyOutcome.SKIPPED;
		}

	}

	/**
	 * Call a method of the same object instead, busy or unavailable alike: it is given
	 * the failure, when it takes one, to tell them apart. An interrupted wait is thrown:
	 * the thread was asked to stop.
	 */
	static final class Fallback extends NotAcquired {

		private final Method method;

		private final boolean takesFailure;

		Fallback(Method method, boolean takesFailure) {
			this.method = method;
			this.takesFailure = takesFailure;
			ReflectionUtils.makeAccessible(method);
		}

		Method method() {
			return this.method;
		}

		@Override
		@Nullable Object handle(LockAcquisitionException failure, LockOperation operation, Object target, @Nullable Object[] args)
				throws Throwable {
			if (failure.getReason() == Reason.INTERRUPTED) {
				throw failure;
			}
			if (logger.isDebugEnabled()) {
				logger.debug(
						"Calling fallback " + this.method.getName() + " of " + operation.describeMethod() + ": lock '"
								+ operation.definition().name() + "' was not acquired (" + failure.getMessage() + ")");
			}
			@Nullable Object[] fallbackArgs = args;
			if (this.takesFailure) {
				fallbackArgs = Arrays.copyOf(args, args.length + 1);
				fallbackArgs[args.length] = failure;
			}
			try {
				return this.method.invoke(target, fallbackArgs);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		@Override
		BusyOutcome busyOutcome() {
			return BusyOutcome.FALLBACK;
		}

	}

}
