package dev.zklock.aop;

import java.time.Duration;
import java.util.Collection;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.zklock.core.ZkLease;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;

/**
 * Locks a method that returns a reactive type (Reactor's {@code Mono}/{@code Flux}, or any type
 * Spring's {@code ReactiveAdapterRegistry} adapts): on each subscription, the lock is acquired
 * without blocking the subscribing thread, then the method is invoked and its publisher
 * subscribed to, and the lock is released when that publisher completes, fails or is cancelled.
 * The method itself runs only inside the lock: a method that does work before returning its
 * publisher does that work locked too. Loaded only when Reactor is on the classpath.
 */
final class ReactiveLocking {

	/**
	 * Wrap a reactive method call in the lock.
	 * @param invocation the invocation, not yet proceeded: each subscription proceeds a clone
	 * @return the locked publisher, adapted back to the method's return type
	 */
	Object lock(ZkLockTemplate template, String name, Collection<String> keys, @Nullable Duration wait,
			ProxyMethodInvocation invocation, @Nullable ReactiveAdapter adapter) {
		if (adapter == null) {
			throw new IllegalStateException("No reactive adapter for " + invocation.getMethod());
		}
		// The ZooKeeper wait blocks a thread: not the subscriber's, which may be an event loop
		Mono<ZkLease> acquire = Mono.fromCallable(() -> template.acquireLease(name, keys, wait))
			.subscribeOn(Schedulers.boundedElastic());
		Publisher<?> locked;
		if (adapter.isMultiValue()) {
			locked = Flux.usingWhen(acquire, (lease) -> invoke(invocation, adapter), ReactiveLocking::release,
					(lease, failure) -> release(lease), ReactiveLocking::release);
		}
		else {
			locked = Mono.usingWhen(acquire, (lease) -> Mono.from(invoke(invocation, adapter)), ReactiveLocking::release,
					(lease, failure) -> release(lease), ReactiveLocking::release);
		}
		return adapter.fromPublisher(locked);
	}

	/**
	 * Call the method for one subscription, through a clone of the invocation, so that a second
	 * subscription calls it again with the rest of the interceptor chain.
	 */
	private static Publisher<?> invoke(ProxyMethodInvocation invocation, ReactiveAdapter adapter) {
		Object result;
		try {
			result = invocation.invocableClone().proceed();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		return (result != null) ? adapter.toPublisher(result) : Mono.empty();
	}

	private static Mono<Void> release(ZkLease lease) {
		return Mono.fromRunnable(lease::release);
	}

}
