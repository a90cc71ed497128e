package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.zklock.template.LockDefinition;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.ReactiveAdapter;
import org.springframework.expression.Expression;

/**
 * What one {@code @DistributedLock} or {@code @DistributedSemaphore} method asks for,
 * resolved and checked once.
 *
 * @param declaration the annotation's attributes as written
 * @param method the annotated method, as declared on the target class
 * @param targetClass the target class
 * @param parsedKey the parsed key expression
 * @param definition the lock's name, what it takes (mode or permits), wait, minimum hold
 * and busy handling, resolved at startup
 * @param elementKey the cache key of the method on its target class
 * @param returnKind how the method's work ends, and so how long the lock is held
 * @param reactiveAdapter the adapter of a reactive return type, for
 * {@link ReturnKind#REACTIVE} and {@link ReturnKind#SUSPENDING} (a {@code Mono}'s)
 * @param notAcquired what the call does when the lock is not acquired
 */
record LockOperation(LockDeclaration declaration, Method method, Class<?> targetClass, Expression parsedKey,
		LockDefinition definition, AnnotatedElementKey elementKey, ReturnKind returnKind,
		@Nullable ReactiveAdapter reactiveAdapter, NotAcquired notAcquired) implements ProxiedMethod {

	/**
	 * How a locked method's work ends.
	 */
	enum ReturnKind {

		/** When the method returns or throws. */
		SYNCHRONOUS,

		/** When the {@code CompletionStage} it returns completes. */
		COMPLETION_STAGE,

		/**
		 * When the publisher it returns terminates or is cancelled; it starts on
		 * subscription.
		 */
		REACTIVE,

		/**
		 * A Kotlin {@code suspend} function: when the coroutine Spring's bridge runs it
		 * in completes or is cancelled.
		 */
		SUSPENDING

	}

	/**
	 * Return the key expression as written.
	 * @return the expression
	 */
	String keyExpression() {
		return this.declaration.key();
	}

	/**
	 * Return the annotation, as {@code @DistributedLock}, for messages.
	 * @return the annotation
	 */
	@Override
	public String annotation() {
		return this.declaration.annotation();
	}

	@Override
	public String unguarded() {
		return "it would run without its lock";
	}

	/**
	 * Return the method as {@code Class.method(ParamType, ...)}, for messages.
	 * @return the description
	 */
	@Override
	public String describeMethod() {
		return describe(this.method, this.targetClass);
	}

	static String describe(Method method, Class<?> targetClass) {
		StringBuilder sb = new StringBuilder(targetClass.getName()).append('.').append(method.getName()).append('(');
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			sb.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return sb.append(')').toString();
	}

}
