package dev.zklock.aop;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLease;
import dev.zklock.template.LockDefinition;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;

/**
 * Locks a method that returns a reactive type (Reactor's {@code Mono}/{@code Flux}, or
 * any type Spring's {@code ReactiveAdapterRegistry} adapts): on each subscription, the
 * lock is acquired without blocking the subscribing thread, then the method is invoked
 * and its publisher subscribed to, and the lock is released when that publisher
 * completes, fails or is cancelled. The method itself runs only inside the lock: a method
 * that does work before returning its publisher does that work locked too. Loaded only
 * when Reactor is on the classpath.
 */
final class ReactiveLocking {

	/**
	 * The ZooKeeper wait blocks a thread: one of these, not the subscriber's event loop.
	 */
	private static final Executor ACQUIRING = (task) -> Schedulers.boundedElastic().schedule(task);

	/**
	 * Wrap a reactive method call in the lock.
	 * @param invocation the invocation, not yet proceeded: each subscription proceeds a
	 * clone
	 * @return the locked publisher, adapted back to the method's return type
	 */
	Object lock(ZkLockTemplate template, LockOperation operation, Collection<String> keys,
			ProxyMethodInvocation invocation, Object target) {
		ReactiveAdapter adapter = operation.reactiveAdapter();
		if (adapter == null) {
			throw new IllegalStateException("No reactive adapter for " + invocation.getMethod());
		}
		LockDefinition definition = operation.definition();
		Publisher<?> locked;
		if (adapter.isMultiValue()) {
			locked = Flux
				.usingWhen(Mono.defer(() -> acquire(template, definition, keys)),
						(acquisition) -> objects(
								acquisition.run(() -> invoke(template, definition, acquisition, invocation, adapter))),
						Acquisition::release, Acquisition::releaseAfter, Acquisition::release)
				.onErrorResume(NotAcquiredSignal.class,
						(signal) -> objects(notAcquired(signal, operation, target, invocation, adapter)));
		}
		else {
			locked = Mono
				.usingWhen(Mono.defer(() -> acquire(template, definition, keys)),
						(acquisition) -> Mono.from(objects(
								acquisition.run(() -> invoke(template, definition, acquisition, invocation, adapter)))),
						Acquisition::release, Acquisition::releaseAfter, Acquisition::release)
				.onErrorResume(NotAcquiredSignal.class,
						(signal) -> Mono.from(objects(notAcquired(signal, operation, target, invocation, adapter))));
		}
		return adapter.fromPublisher(locked);
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> objects(Publisher<?> publisher) {
		return (Publisher<Object>) publisher;
	}

	/**
	 * The lock was not acquired: throw, skip or call the fallback, as the operation says,
	 * on the subscriber's side.
	 */
	private static Publisher<?> notAcquired(NotAcquiredSignal signal, LockOperation operation, Object target,
			ProxyMethodInvocation invocation, ReactiveAdapter adapter) {
		Object result;
		try {
			result = operation.notAcquired().handle(signal.failure, operation, target, invocation.getArguments());
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		return (result != null) ? adapter.toPublisher(result) : Mono.empty();
	}

	/**
	 * One subscription's acquisition, on a bounded-elastic thread. If the subscriber
	 * cancels before the lease arrives, Reactor drops the value it can no longer deliver:
	 * the acquisition then releases the lease itself when it arrives, so a cancelled
	 * subscription can never leave the lock held.
	 */
	private static Mono<Acquisition> acquire(ZkLockTemplate template, LockDefinition definition,
			Collection<String> keys) {
		Acquisition acquisition = new Acquisition(template);
		// Never completed exceptionally: a failure that arrives after a cancellation is
		// then not an error Reactor drops (and logs at ERROR), just a value nobody reads
		CompletableFuture<Object> attempt = CompletableFuture.supplyAsync(() -> {
			try {
				return template.acquireLease(definition, keys);
			}
			catch (LockAcquisitionException ex) {
				return new NotAcquiredSignal(ex);
			}
			catch (RuntimeException ex) {
				return ex;
			}
		}, ACQUIRING);
		attempt.whenComplete((result, failure) -> {
			if (result instanceof ZkLease acquired) {
				acquisition.arrived(acquired);
			}
		});
		// Also on delivery: whichever of the two callbacks runs first, the lease is known
		// before use
		return Mono.fromFuture(attempt, true).flatMap((result) -> {
			if (result instanceof ZkLease acquired) {
				acquisition.arrived(acquired);
				return Mono.just(acquisition);
			}
			return Mono.error((Throwable) result);
		}).doOnCancel(acquisition::abandon);
	}

	/**
	 * Call the method for one subscription, through a clone of the invocation, so that a
	 * second subscription calls it again with the rest of the interceptor chain.
	 */
	private static Publisher<?> invoke(ZkLockTemplate template, LockDefinition definition, Acquisition acquisition,
			ProxyMethodInvocation invocation, ReactiveAdapter adapter) {
		Object result;
		try {
			result = template.<@Nullable Object, Throwable>runInContext(acquisition.lease(),
					() -> invocation.invocableClone().proceed());
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		Publisher<?> work = (result != null) ? adapter.toPublisher(result) : Mono.empty();
		return definition.stopsOnLost() ? stoppedOnLost(template, acquisition.lease(), work, adapter.isMultiValue())
				: work;
	}

	/**
	 * The work, cancelled when its lease is lost, after which it fails with the loss.
	 */
	private static Publisher<?> stoppedOnLost(ZkLockTemplate template, ZkLease lease, Publisher<?> work,
			boolean multiValue) {
		AtomicReference<@Nullable LockLostException> lost = new AtomicReference<>();
		Sinks.One<Boolean> stop = Sinks.one();
		template.stopOnLost(lease, (loss) -> {
			lost.set(loss);
			stop.tryEmitValue(true);
		});
		Mono<Object> failure = Mono.defer(() -> {
			LockLostException loss = lost.get();
			return (loss != null) ? Mono.error(loss) : Mono.empty();
		});
		if (multiValue) {
			return Flux.from(objects(work)).takeUntilOther(stop.asMono()).concatWith(failure);
		}
		return Mono.from(objects(work)).takeUntilOther(stop.asMono()).switchIfEmpty(failure);
	}

	/**
	 * The lock of a subscription was not acquired: carried through the stream to where
	 * the operation decides what to do, apart from failures of the method's own stream.
	 */
	private static final class NotAcquiredSignal extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient LockAcquisitionException failure;

		NotAcquiredSignal(LockAcquisitionException failure) {
			super(failure.getMessage(), failure, false, false);
			this.failure = failure;
		}

	}

	/**
	 * Who releases a lease: the stream once it started with it, or the acquisition itself
	 * if the subscription was cancelled first. Exactly one of them does, and the method
	 * never runs on a lease the acquisition gave back.
	 */
	static final class Acquisition {

		private static final int PENDING = 0;

		private static final int STARTED = 1;

		private static final int ABANDONED = 2;

		private final AtomicInteger state = new AtomicInteger(PENDING);

		private final ZkLockTemplate template;

		private volatile @Nullable ZkLease lease;

		Acquisition(ZkLockTemplate template) {
			this.template = template;
		}

		ZkLease lease() {
			ZkLease arrived = this.lease;
			if (arrived == null) {
				throw new IllegalStateException("The stream started before its lease arrived");
			}
			return arrived;
		}

		void arrived(ZkLease lease) {
			this.lease = lease;
			if (this.state.get() == ABANDONED) {
				this.template.releaseUnused(lease);
			}
		}

		/**
		 * The subscription was cancelled: unless the stream already started, the lease
		 * (now or when it arrives) is released here.
		 */
		void abandon() {
			if (this.state.compareAndSet(PENDING, ABANDONED)) {
				ZkLease arrived = this.lease;
				if (arrived != null) {
					this.template.releaseUnused(arrived);
				}
			}
		}

		/**
		 * Start the stream on the lease, unless the subscription was cancelled meanwhile.
		 */
		Publisher<?> run(Supplier<Publisher<?>> stream) {
			if (!this.state.compareAndSet(PENDING, STARTED)) {
				return Mono.empty();
			}
			return stream.get();
		}

		/**
		 * Release after the stream failed. A stream stopped as its lease was lost fails
		 * with the loss already; the release's own report of it would only hide that
		 * under Reactor's "cleanup failed".
		 */
		Mono<Void> releaseAfter(Throwable failure) {
			return release().onErrorResume(LockLostException.class,
					(lost) -> (failure instanceof LockLostException) ? Mono.empty() : Mono.error(lost));
		}

		Mono<Void> release() {
			return Mono.fromRunnable(() -> {
				ZkLease held = this.lease;
				if (held != null && this.state.get() == STARTED) {
					held.release();
				}
			});
		}

	}

}
