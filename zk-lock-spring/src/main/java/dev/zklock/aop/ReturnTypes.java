package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How a locked method's work ends, read from its return type: the one place that knows
 * which libraries are present (Reactor, Kotlin coroutines) and which types carry work
 * that outlives the call (futures, streams, publishers, other libraries' deferred types).
 * At startup it decides each method's {@link LockOperation.ReturnKind}; on a call, it
 * tells whether a value a method returned is work still pending.
 */
final class ReturnTypes {

	private static final ClassLoader CLASS_LOADER = ReturnTypes.class.getClassLoader();

	/** Whether Reactor is present: reactive return types are locked through it. */
	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux", CLASS_LOADER);

	/**
	 * Kotlin suspend functions need Spring's coroutine bridge, which needs Reactor and
	 * these.
	 */
	private static final boolean COROUTINES_PRESENT = REACTOR_PRESENT && KotlinDetector.isKotlinReflectPresent()
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", CLASS_LOADER);

	private static final Class<?> MONO = REACTOR_PRESENT
			? ClassUtils.resolveClassName("reactor.core.publisher.Mono", CLASS_LOADER) : Void.class;

	private static final String REACTIVE_STREAMS_PUBLISHER = "org.reactivestreams.Publisher";

	/** Resolved once, for the check on every call. */
	private static final Class<?> PUBLISHER = ClassUtils.isPresent(REACTIVE_STREAMS_PUBLISHER, CLASS_LOADER)
			? ClassUtils.resolveClassName(REACTIVE_STREAMS_PUBLISHER, CLASS_LOADER) : Void.class;

	/**
	 * Types whose work runs after they are returned, known by name so as not to need
	 * them.
	 */
	private static final List<String> DEFERRED_TYPES = List.of("io.reactivex.rxjava3.core.Single",
			"io.reactivex.rxjava3.core.Maybe", "io.reactivex.rxjava3.core.Completable",
			"io.reactivex.rxjava3.core.Observable", "io.reactivex.rxjava3.core.Flowable", "io.smallrye.mutiny.Uni",
			"io.smallrye.mutiny.Multi", "kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Deferred");

	private ReturnTypes() {
	}

	/**
	 * Return whether a method is a Kotlin suspend function that Spring's coroutine bridge
	 * can run.
	 * @param method the method
	 * @return whether it is locked as {@link LockOperation.ReturnKind#SUSPENDING}
	 */
	static boolean isSuspending(Method method) {
		return COROUTINES_PRESENT && KotlinDetector.isSuspendingFunction(method);
	}

	/**
	 * Return the adapter of a reactive return type; Spring's coroutine bridge calls a
	 * suspend function as a {@code Mono}.
	 * @param returnType the method's return type
	 * @param suspending whether the method is a suspend function
	 * @return the adapter, or {@code null} if the type is not reactive or Reactor is
	 * absent
	 */
	static @Nullable ReactiveAdapter reactiveAdapter(Class<?> returnType, boolean suspending) {
		return !REACTOR_PRESENT ? null
				: ReactiveAdapterRegistry.getSharedInstance().getAdapter(suspending ? MONO : returnType);
	}

	/**
	 * How the method's work ends. Types whose work may run after the method returned, and
	 * that the lock cannot follow, fail: the work would run without its lock.
	 * @param method the method
	 * @param type its return type, resolved on the target class
	 * @param adapter the adapter of a reactive return type, if any
	 * @param annotation the annotation, for messages
	 * @param description the method, for messages
	 * @return the kind
	 * @throws InvalidLockDeclarationException if the lock cannot follow the work
	 */
	static LockOperation.ReturnKind returnKind(Method method, Class<?> type, @Nullable ReactiveAdapter adapter,
			String annotation, String description) {
		if (CompletionStage.class.isAssignableFrom(type)) {
			return LockOperation.ReturnKind.COMPLETION_STAGE;
		}
		if (adapter != null) {
			return LockOperation.ReturnKind.REACTIVE;
		}
		boolean kotlinSuspend = takesContinuation(method);
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

	/**
	 * Say whether a method's work goes on after it returns, whatever can follow it: for
	 * what must end when the method returns.
	 * @param method the method
	 * @param type its return type, resolved on the target class
	 * @return why its work outlives the call, to follow "because" ({@code it returns
	 * java.util.concurrent.CompletableFuture}), or {@code null} if it ends with the call
	 */
	static @Nullable String deferredWork(Method method, Class<?> type) {
		if (takesContinuation(method)) {
			return "it is a Kotlin suspend function";
		}
		if (CompletionStage.class.isAssignableFrom(type) || reactiveAdapter(type, false) != null
				|| Future.class.isAssignableFrom(type) || BaseStream.class.isAssignableFrom(type) || isPublisher(type)
				|| isDeferredByName(type)) {
			return "it returns " + type.getName();
		}
		return null;
	}

	private static boolean takesContinuation(Method method) {
		return method.getParameterCount() > 0 && method.getParameterTypes()[method.getParameterCount() - 1].getName()
			.equals("kotlin.coroutines.Continuation");
	}

	/**
	 * Return whether a value returned by a method declared to return a plain value (an
	 * {@code Object}, a type variable) is work that goes on after the call: a pending
	 * future, a stream, a publisher.
	 * @param result the value
	 * @return whether its work may run after the lock is released
	 */
	static boolean isPendingWork(Object result) {
		if (result instanceof CompletionStage<?> stage) {
			try {
				return !stage.toCompletableFuture().isDone();
			}
			catch (UnsupportedOperationException ex) {
				return true;
			}
		}
		if (result instanceof Future<?> future) {
			return !future.isDone();
		}
		return result instanceof BaseStream<?, ?> || result instanceof Flow.Publisher<?>
				|| ClassUtils.isAssignableValue(PUBLISHER, result);
	}

	/**
	 * Whether a declared type is a publisher; by name, through the type's own class
	 * loader.
	 */
	private static boolean isPublisher(Class<?> type) {
		return Flow.Publisher.class.isAssignableFrom(type) || isAssignableByName(REACTIVE_STREAMS_PUBLISHER, type);
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
