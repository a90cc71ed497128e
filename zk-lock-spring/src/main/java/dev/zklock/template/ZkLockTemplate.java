package dev.zklock.template;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.ZkLockRegistry;

/**
 * Runs work while holding a lock, and observes it: the wait as the {@code zklock.acquire}
 * observation (tagged {@code lock.name} and {@code outcome}) and the hold as the
 * {@code zklock.held} observation (tagged {@code lock.name}). With Micrometer's meter handler,
 * they become the timers {@code zklock.acquire} and {@code zklock.held} and the long task timers
 * of the same names with {@code .active}. {@code @DistributedLock} runs through this template,
 * with the key expression as the name.
 *
 * <p>Work may run on the calling thread ({@link #execute}), or go on after the call returns: a
 * {@link CompletionStage} holds the lock until it completes ({@link #executeAsync}), and a
 * {@link #acquireLease lease} until it is released from any thread. Several keys are locked in
 * one global order, under one wait, all or nothing ({@link ZkLockRegistry#obtainAll}).
 *
 * <p>The name is what metrics are tagged with; it must have few values (an expression, a method,
 * a purpose), never the key itself, which is unbounded. A reentrant call (the thread already
 * holds the keys) is not observed again.
 *
 * @author zk-lock
 */
public class ZkLockTemplate {

	/**
	 * Name of the observation of the wait for a lock.
	 */
	public static final String ACQUIRE_OBSERVATION = "zklock.acquire";

	/**
	 * Name of the observation of a hold.
	 */
	public static final String HELD_OBSERVATION = "zklock.held";

	private static final Log logger = LogFactory.getLog(ZkLockTemplate.class);

	private final ZkLockRegistry registry;

	private final ObservationRegistry observationRegistry;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 * @param observationRegistry the observation registry, {@link ObservationRegistry#NOOP} to
	 * observe nothing
	 */
	public ZkLockTemplate(ZkLockRegistry registry, ObservationRegistry observationRegistry) {
		this.registry = registry;
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Run work on this thread while holding the lock for a key.
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param key the key
	 * @param wait the longest wait; {@link Duration#ZERO} makes one attempt; {@code null} uses
	 * the registry's default wait
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if the lock was not acquired
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(String name, String key, @Nullable Duration wait,
			LockedTask<T, E> task) throws E {
		return execute(name, List.of(key), wait, task);
	}

	/**
	 * Run work on this thread while holding the locks of several keys, taken in one global
	 * order under one wait, all or nothing.
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param wait the longest wait for all of them; {@link Duration#ZERO} makes one attempt per
	 * key; {@code null} uses the registry's default wait
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(String name, Collection<String> keys,
			@Nullable Duration wait, LockedTask<T, E> task) throws E {
		ZkLock lock = this.registry.obtainAll(keys);
		if (lock.isHeldByCurrentThread()) {
			lock.lock();
			return runAndRelease(lock, task, null);
		}
		Observation held = acquire(name, lock, wait);
		return runAndRelease(lock, task, held);
	}

	/**
	 * Start asynchronous work while holding the locks of some keys, and keep holding them until
	 * the work's stage completes, normally or exceptionally. The work's synchronous part runs on
	 * this thread with the locks held by it (so it may re-enter them); then the hold passes to
	 * the stage and is released by whichever thread completes it. If the work throws, the locks
	 * are released at once.
	 * <p>A {@code CompletableFuture} is returned as a copy: completing or cancelling the copy
	 * (as {@code orTimeout} or a caller's {@code cancel} do) cannot end the hold while the work
	 * still runs; the locks go when the work itself ends.
	 * @param <S> the stage type
	 * @param <E> what starting the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param wait the longest wait; see {@link #execute(String, Collection, Duration, LockedTask)}
	 * @param task starts the work and returns its stage
	 * @return the stage the task returned, or for a {@code CompletableFuture} a copy of it
	 * @throws LockAcquisitionException if a lock was not acquired; the task was not started
	 * @throws IllegalStateException if this thread already holds one of the keys: the work would
	 * outlive that hold
	 * @throws E what starting the work throws
	 */
	@SuppressWarnings("unchecked")
	public <S extends @Nullable CompletionStage<?>, E extends Throwable> S executeAsync(String name,
			Collection<String> keys, @Nullable Duration wait, LockedTask<S, E> task) throws E {
		ZkLock lock = heldByNoOne(keys);
		Observation held = acquire(name, lock, wait);
		S stage;
		ZkLease lease;
		try {
			stage = task.run();
			if (stage == null) {
				release(lock, held, null);
				return null;
			}
			lease = lock.toLease();
		}
		catch (Throwable ex) {
			release(lock, held, ex);
			throw ex;
		}
		// Whatever the stage is (some throw from isDone()), the release follows its completion
		try {
			stage.whenComplete((result, failure) -> releaseLater(lease, held));
		}
		catch (RuntimeException | Error ex) {
			releaseLater(lease, held);
			throw ex;
		}
		if (stage.getClass() == CompletableFuture.class) {
			return (S) ((CompletableFuture<?>) stage).copy();
		}
		return stage;
	}

	/**
	 * Acquire the locks of some keys as a lease that any thread may release, for work that
	 * ends elsewhere (a reactive stream, a callback). The hold is observed until the lease is
	 * released.
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param wait the longest wait; see {@link #execute(String, Collection, Duration, LockedTask)}
	 * @return the lease, held
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws IllegalStateException if this thread already holds one of the keys: a lease
	 * cannot share a thread's hold
	 */
	public ZkLease acquireLease(String name, Collection<String> keys, @Nullable Duration wait) {
		ZkLock lock = heldByNoOne(keys);
		Observation held = acquire(name, lock, wait);
		try {
			return new ObservedLease(lock.toLease(), held);
		}
		catch (RuntimeException | Error ex) {
			release(lock, held, ex);
			throw ex;
		}
	}

	/**
	 * Return the registry.
	 * @return the registry
	 */
	public ZkLockRegistry getRegistry() {
		return this.registry;
	}

	private ZkLock heldByNoOne(Collection<String> keys) {
		ZkLock lock = this.registry.obtainAll(keys);
		for (String key : keys) {
			if (this.registry.obtain(key).isHeldByCurrentThread()) {
				throw new IllegalStateException("Cannot lock '" + key + "' for work that outlives this call: the thread "
						+ Thread.currentThread().getName() + " already holds it, and its hold ends before that work "
						+ "does. Start the work outside the code that holds '" + key + "'.");
			}
		}
		return lock;
	}

	/**
	 * Acquire under the {@code zklock.acquire} observation and start the {@code zklock.held} one.
	 * If observing fails once the locks are taken, they are given back before the failure
	 * propagates: no path leaves them held with nobody to release them.
	 * @return the started hold observation
	 */
	private Observation acquire(String name, ZkLock lock, @Nullable Duration wait) {
		Observation observation = Observation.createNotStarted(ACQUIRE_OBSERVATION, this.observationRegistry)
			.lowCardinalityKeyValue("lock.name", name)
			.start();
		try {
			lock.acquire((wait != null) ? wait : this.registry.getOptions().defaultWait());
		}
		catch (LockAcquisitionException ex) {
			String outcome = switch (ex.getReason()) {
				case HELD_LOCALLY, HELD_REMOTELY -> "timeout";
				default -> "error";
			};
			observation.lowCardinalityKeyValue(KeyValue.of("outcome", outcome)).stop();
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			observation.lowCardinalityKeyValue(KeyValue.of("outcome", "error")).stop();
			throw ex;
		}
		try {
			observation.lowCardinalityKeyValue(KeyValue.of("outcome", "acquired")).stop();
			return Observation.createNotStarted(HELD_OBSERVATION, this.observationRegistry)
				.lowCardinalityKeyValue("lock.name", name)
				.start();
		}
		catch (RuntimeException | Error ex) {
			release(lock, null, ex);
			throw ex;
		}
	}

	private <T extends @Nullable Object, E extends Throwable> T runAndRelease(ZkLock lock, LockedTask<T, E> task,
			@Nullable Observation held) throws E {
		T result;
		try {
			result = task.run();
		}
		catch (Throwable ex) {
			release(lock, held, ex);
			throw ex;
		}
		release(lock, held, null);
		return result;
	}

	/**
	 * Release a hold of this thread. A lost lease must not hide the work's own exception: it is
	 * attached to it instead.
	 */
	private static void release(ZkLock lock, @Nullable Observation held, @Nullable Throwable failure) {
		try {
			lock.unlock();
		}
		catch (RuntimeException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
		finally {
			if (held != null) {
				held.stop();
			}
		}
	}

	/**
	 * Release a hold at the end of asynchronous work, on whichever thread ended it: nobody is
	 * left to throw to, so a lost lease is logged (and counted by the registry's listeners).
	 */
	private static void releaseLater(ZkLease lease, Observation held) {
		try {
			lease.release();
		}
		catch (RuntimeException ex) {
			logger.warn("Releasing " + lease + " at the end of asynchronous work: " + ex.getMessage());
		}
		finally {
			held.stop();
		}
	}

	/**
	 * A lease whose hold is observed until it is released.
	 */
	private static final class ObservedLease implements ZkLease {

		private final ZkLease lease;

		private final Observation held;

		private final AtomicBoolean released = new AtomicBoolean();

		ObservedLease(ZkLease lease, Observation held) {
			this.lease = lease;
			this.held = held;
		}

		@Override
		public String key() {
			return this.lease.key();
		}

		@Override
		public String path() {
			return this.lease.path();
		}

		@Override
		public long fencingToken() {
			return this.lease.fencingToken();
		}

		@Override
		public LeaseState state() {
			return this.lease.state();
		}

		@Override
		public void release() {
			if (this.released.compareAndSet(false, true)) {
				try {
					this.lease.release();
				}
				finally {
					this.held.stop();
				}
			}
		}

		@Override
		public String toString() {
			return this.lease.toString();
		}

	}

}
