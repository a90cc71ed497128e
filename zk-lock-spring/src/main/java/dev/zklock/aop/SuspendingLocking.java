package dev.zklock.aop;

import kotlin.coroutines.Continuation;
import kotlinx.coroutines.reactor.MonoKt;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Hands a locked publisher back to a Kotlin {@code suspend} caller. Spring calls a
 * suspending method through its coroutine bridge, which turns the call into a
 * {@code Mono}; the lock is held around that {@code Mono} as for any reactive method
 * ({@link ReactiveLocking}), and the caller's continuation then awaits it, so that the
 * caller suspends rather than blocks and a cancelled coroutine cancels the subscription
 * (and so releases the lock). Loaded only when kotlinx-coroutines-reactor is on the
 * classpath.
 */
final class SuspendingLocking {

	private SuspendingLocking() {
	}

	/**
	 * Await a locked publisher in the caller's continuation.
	 * @param locked the locked {@code Mono} of the call
	 * @param continuation the caller's continuation, the method's last argument
	 * @return the result ({@code null} for a function that returns {@code Unit} or
	 * {@code null}), or the coroutine-suspended marker
	 */
	@SuppressWarnings("unchecked")
	static @Nullable Object await(Publisher<?> locked, Object continuation) {
		return MonoKt.awaitSingleOrNull(Mono.from((Publisher<Object>) locked), (Continuation<Object>) continuation);
	}

}
