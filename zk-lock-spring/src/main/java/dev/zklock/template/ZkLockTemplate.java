package dev.zklock.template;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockLostException;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.observation.DefaultZkLockAcquireObservationConvention;
import dev.zklock.template.observation.DefaultZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockObservationDocumentation;

import org.springframework.context.SmartLifecycle;

/**
 * Runs work while holding a lock, and observes it: the wait as the {@code zklock.acquire}
 * observation (tagged {@code lock.name}, {@code kind} and {@code outcome}) and the hold
 * as the {@code zklock.held} observation (tagged {@code lock.name} and {@code kind}). The
 * {@code kind} says what was taken: {@code exclusive}, {@code read}, {@code write} or
 * {@code semaphore} ({@link LockDefinition#withMode},
 * {@link LockDefinition#withPermits}). With Micrometer's meter handler, they become the
 * timers {@code zklock.acquire} and {@code zklock.held} and the long task timers of the
 * same names with {@code .active}. {@code @DistributedLock} runs through this template,
 * with the key expression as the name. These are the default conventions' names and tags
 * ({@link ZkLockObservationDocumentation}); an application may give its own
 * ({@link #setAcquireObservationConvention}, {@link #setHeldObservationConvention}).
 *
 * <p>
 * Work may run on the calling thread ({@link #execute}), or go on after the call returns:
 * a {@link CompletionStage} holds the lock until it completes ({@link #executeAsync}),
 * and a {@link #acquireLease lease} until it is released from any thread. Several keys
 * are locked in one global order, under one wait, all or nothing
 * ({@link ZkLockRegistry#obtainAll}).
 *
 * <p>
 * The name is what metrics are tagged with; it must have few values (an expression, a
 * method, a purpose), never the key itself, which is unbounded. A reentrant call (the
 * thread already holds the keys) is not observed again.
 *
 * <p>
 * A {@link LockDefinition#holdAtLeast() minimum hold} outlives a graceful shutdown: as a
 * {@link SmartLifecycle} bean, the template is stopped when its application context
 * closes, after the task schedulers and executors
 * ({@link MinimumHoldScheduler#SHUTDOWN_PHASE}), and keeps the holds still waiting for
 * their minimum until it has passed, within the shutdown phase's timeout; meanwhile it
 * takes no new lock with a minimum hold. See {@link #stop(Runnable)} and
 * {@link #close()}.
 *
 * @author zk-lock
 */
public class ZkLockTemplate implements AutoCloseable, SmartLifecycle {

	/**
	 * Name of the observation of the wait for a lock, as the default convention gives it
	 * ({@link ZkLockObservationDocumentation#LOCK_ACQUIRE}); a custom convention may give
	 * another.
	 */
	public static final String ACQUIRE_OBSERVATION = "zklock.acquire";

	/**
	 * Name of the observation of a hold, as the default convention gives it
	 * ({@link ZkLockObservationDocumentation#LOCK_HELD}); a custom convention may give
	 * another.
	 */
	public static final String HELD_OBSERVATION = "zklock.held";

	private final ZkLockRegistry registry;

	private final LockObservations observations;

	private final HoldTracker tracker;

	private final Acquirer acquirer;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 * @param observationRegistry the observation registry,
	 * {@link ObservationRegistry#NOOP} to observe nothing
	 */
	public ZkLockTemplate(ZkLockRegistry registry, ObservationRegistry observationRegistry) {
		this.registry = registry;
		this.observations = new LockObservations(observationRegistry);
		this.tracker = new HoldTracker(registry);
		this.acquirer = new Acquirer(registry, this.observations, this.tracker.minimumHolds);
	}

	/**
	 * Name and tag the waits for a lock with a custom convention rather than the default
	 * {@link DefaultZkLockAcquireObservationConvention}. Set it before the template is
	 * used.
	 * @param observationConvention the convention, {@code null} for the default
	 */
	public void setAcquireObservationConvention(@Nullable ZkLockAcquireObservationConvention observationConvention) {
		this.observations.setAcquireConvention(observationConvention);
	}

	/**
	 * Name and tag the holds with a custom convention rather than the default
	 * {@link DefaultZkLockHeldObservationConvention}. Set it before the template is used.
	 * @param observationConvention the convention, {@code null} for the default
	 */
	public void setHeldObservationConvention(@Nullable ZkLockHeldObservationConvention observationConvention) {
		this.observations.setHeldConvention(observationConvention);
	}

	/**
	 * Run work on this thread while holding the lock for a key.
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param key the key
	 * @param waitAtMost the longest wait; {@link Duration#ZERO} makes one attempt;
	 * {@code null} uses the registry's default wait
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if the lock was not acquired
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(String name, String key,
			@Nullable Duration waitAtMost, LockedTask<T, E> task) throws E {
		return execute(LockDefinition.of(name, waitAtMost), List.of(key), task);
	}

	/**
	 * Run work on this thread while holding the locks of several keys, taken in one
	 * global order under one wait, all or nothing.
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param waitAtMost the longest wait for all of them; {@link Duration#ZERO} makes one
	 * attempt per key; {@code null} uses the registry's default wait
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(String name, Collection<String> keys,
			@Nullable Duration waitAtMost, LockedTask<T, E> task) throws E {
		return execute(LockDefinition.of(name, waitAtMost), keys, task);
	}

	/**
	 * Run work on this thread while holding the locks of some keys as a definition says:
	 * taken in one global order under its wait, all or nothing, and released when the
	 * work ends, or with a {@link LockDefinition#holdAtLeast() minimum hold} once that
	 * has passed. The work sees its lock through {@link LockContext#current()}.
	 * <p>
	 * The definition says what is taken on each key: the exclusive lock, the read or
	 * write side of its read/write lock (a thread that holds the write side may take the
	 * read side; one that holds only the read side gets an {@link IllegalStateException}
	 * for the write side), or one permit of a semaphore (one key only; not reentrant).
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param definition the name, what is taken, wait, minimum hold and busy handling
	 * @param keys the keys, at least one
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws IllegalStateException if the definition takes the write side of a key whose
	 * read side this thread holds
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(LockDefinition definition,
			Collection<String> keys, LockedTask<T, E> task) throws E {
		RecipeLock recipeLock = RecipeLock.of(this.registry, definition, keys);
		if (definition.holdAtLeast() == null && recipeLock.isHeldByCurrentThread()) {
			// Reentrant: held already, so neither waited for nor observed again
			recipeLock.acquire(this.acquirer.waitAtMost(definition));
			Hold hold = new Hold(this.tracker, definition, recipeLock, keys, null);
			return hold.run(task);
		}
		Hold hold = new Hold(this.tracker, definition, recipeLock, keys,
				this.acquirer.acquire(definition, recipeLock, keys));
		return hold.run(task);
	}

	/**
	 * Start asynchronous work while holding the locks of some keys, and keep holding them
	 * until the work's stage completes, normally or exceptionally. The work's synchronous
	 * part runs on this thread with the locks held by it (so it may re-enter them); then
	 * the hold passes to the stage and is released by whichever thread completes it. If
	 * the work throws, the locks are released at once.
	 * <p>
	 * A {@code CompletableFuture} is returned as a copy: completing or cancelling the
	 * copy (as {@code orTimeout} or a caller's {@code cancel} do) cannot end the hold
	 * while the work still runs; the locks go when the work itself ends.
	 * @param <S> the stage type
	 * @param <E> what starting the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param waitAtMost the longest wait; see
	 * {@link #execute(String, Collection, Duration, LockedTask)}
	 * @param task starts the work and returns its stage
	 * @return the stage the task returned, or for a {@code CompletableFuture} a copy of
	 * it
	 * @throws LockAcquisitionException if a lock was not acquired; the task was not
	 * started
	 * @throws IllegalStateException if this thread already holds one of the keys: the
	 * work would outlive that hold
	 * @throws E what starting the work throws
	 */
	public <S extends @Nullable CompletionStage<?>, E extends Throwable> S executeAsync(String name,
			Collection<String> keys, @Nullable Duration waitAtMost, LockedTask<S, E> task) throws E {
		return executeAsync(LockDefinition.of(name, waitAtMost), keys, task);
	}

	/**
	 * Start asynchronous work while holding the locks of some keys as a definition says,
	 * and keep holding them until the work's stage completes (and its minimum hold, if
	 * any, has passed). See
	 * {@link #executeAsync(String, Collection, Duration, LockedTask)}.
	 * @param <S> the stage type
	 * @param <E> what starting the work may throw
	 * @param definition the name, what is taken, wait, minimum hold and busy handling: an
	 * exclusive lock or a semaphore permit, not a read or write side, which belongs to
	 * its thread
	 * @param keys the keys, at least one
	 * @param task starts the work and returns its stage
	 * @return the stage the task returned, or for a {@code CompletableFuture} a copy of
	 * it
	 * @throws LockAcquisitionException if a lock was not acquired (with a minimum hold,
	 * also if this thread holds one of the keys already); the task was not started
	 * @throws IllegalStateException if this thread already holds one of the keys: the
	 * work would outlive that hold
	 * @throws IllegalArgumentException if the definition takes a read or write side
	 * @throws E what starting the work throws
	 */
	@SuppressWarnings("unchecked")
	public <S extends @Nullable CompletionStage<?>, E extends Throwable> S executeAsync(LockDefinition definition,
			Collection<String> keys, LockedTask<S, E> task) throws E {
		RecipeLock recipeLock = this.acquirer.forWorkThatOutlivesTheCall(definition, keys);
		Hold hold = new Hold(this.tracker, definition, recipeLock, keys,
				this.acquirer.acquire(definition, recipeLock, keys));
		S stage;
		try {
			stage = LockContextHolder.runWith(hold, task);
		}
		catch (Throwable ex) {
			hold.end(ex);
			throw ex;
		}
		if (stage == null) {
			hold.end(null);
			return stage;
		}
		ZkLease lease;
		try {
			hold.watchNodesIfStopped();
			lease = recipeLock.toLease();
		}
		catch (RuntimeException ex) {
			Hold.release(recipeLock, hold, ex);
			throw ex;
		}
		WorkStopper stopper = hold.stopOnLost(lease, () -> WorkStopper.completeWithLoss(stage, lease));
		// Whatever the stage is (some throw from isDone()), the release follows its
		// completion
		try {
			stage.whenComplete((result, failure) -> {
				hold.unwatch(stopper);
				hold.endLater(lease);
			});
		}
		catch (RuntimeException | Error ex) {
			hold.unwatch(stopper);
			hold.endLater(lease);
			throw ex;
		}
		if (stage.getClass() == CompletableFuture.class) {
			return (S) ((CompletableFuture<?>) stage).copy();
		}
		return stage;
	}

	/**
	 * Acquire the locks of some keys as a lease that any thread may release, for work
	 * that ends elsewhere (a reactive stream, a callback). The hold is observed until the
	 * lease is released.
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param waitAtMost the longest wait; see
	 * {@link #execute(String, Collection, Duration, LockedTask)}
	 * @return the lease, held
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws IllegalStateException if this thread already holds one of the keys: a lease
	 * cannot share a thread's hold
	 */
	public ZkLease acquireLease(String name, Collection<String> keys, @Nullable Duration waitAtMost) {
		return acquireLease(LockDefinition.of(name, waitAtMost), keys);
	}

	/**
	 * Acquire the locks of some keys (or a semaphore's permit) as a lease, as a
	 * definition says. With a minimum hold, releasing the lease early keeps the locks
	 * until the minimum has passed. See
	 * {@link #acquireLease(String, Collection, Duration)}.
	 * @param definition the name, what is taken, wait, minimum hold and busy handling: an
	 * exclusive lock or a semaphore permit, not a read or write side, which belongs to
	 * its thread
	 * @param keys the keys, at least one
	 * @return the lease, held
	 * @throws LockAcquisitionException if a lock was not acquired (with a minimum hold,
	 * also if this thread holds one of the keys already); none is held then
	 * @throws IllegalStateException if this thread already holds one of the keys: a lease
	 * cannot share a thread's hold
	 * @throws IllegalArgumentException if the definition takes a read or write side
	 */
	public ZkLease acquireLease(LockDefinition definition, Collection<String> keys) {
		RecipeLock recipeLock = this.acquirer.forWorkThatOutlivesTheCall(definition, keys);
		Hold hold = new Hold(this.tracker, definition, recipeLock, keys,
				this.acquirer.acquire(definition, recipeLock, keys));
		try {
			// Several keys' tokens can only be read while this thread holds them
			LockContext context = (keys.size() == 1) ? null : hold.snapshot();
			hold.watchNodesIfStopped();
			ZkLease lease = recipeLock.toLease();
			return new ObservedLease(lease, hold,
					(context != null) ? context : AbstractLockContext.of(definition.name(), hold.keys(),
							(key) -> lease.fencingToken(), lease::state, (key) -> lease.path()));
		}
		catch (RuntimeException | Error ex) {
			hold.end(ex);
			throw ex;
		}
	}

	/**
	 * Run work with the {@link LockContext} of a lease from {@link #acquireLease}, for
	 * callers that do the lease's work themselves on the thread that holds it (the
	 * assembly of a reactive stream, for example).
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param lease a lease from this template's {@code acquireLease}
	 * @param task the work
	 * @return the work's result
	 * @throws IllegalArgumentException if the lease did not come from
	 * {@code acquireLease}
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T runInContext(ZkLease lease, LockedTask<T, E> task)
			throws E {
		if (!(lease instanceof ObservedLease observed)) {
			throw new IllegalArgumentException(lease + " did not come from ZkLockTemplate.acquireLease");
		}
		return LockContextHolder.runWith(observed.context(), task);
	}

	/**
	 * Have the work of a lease from {@link #acquireLease} stopped when the lease is lost
	 * before it is released, if its definition says so
	 * ({@link dev.zklock.annotation.OnLost#INTERRUPT}), for callers that run the lease's
	 * work themselves (a reactive stream). Nothing happens for a definition that lets the
	 * work run on.
	 * @param lease a lease from this template's {@code acquireLease}
	 * @param stop what stops the work, given the {@link LockLostException} that tells the
	 * loss (what made the lease lost included): run at most once, on a thread of its own
	 * (not ZooKeeper's event thread), and not after the lease is released
	 * @throws IllegalArgumentException if the lease did not come from
	 * {@code acquireLease}
	 */
	public void stopOnLost(ZkLease lease, Consumer<LockLostException> stop) {
		if (!(lease instanceof ObservedLease observed)) {
			throw new IllegalArgumentException(lease + " did not come from ZkLockTemplate.acquireLease");
		}
		observed.stopOnLost(() -> stop.accept(WorkStopper.lossOf(lease)));
	}

	/**
	 * Release a lease from {@link #acquireLease} whose work never started (a subscription
	 * cancelled while it waited, say): at once, whatever its minimum hold, which exists
	 * to space out runs of the work and there was none.
	 * @param lease a lease from this template's {@code acquireLease}
	 */
	public void releaseUnused(ZkLease lease) {
		if (lease instanceof ObservedLease observed) {
			observed.releaseNow();
		}
		else {
			lease.release();
		}
	}

	/**
	 * Return the names of the locks this template holds now, by key: what a key is held
	 * for, as the {@code zklocks} endpoint shows it. A reentrant hold keeps the outermost
	 * name.
	 * @return the lock name of each key held through this template
	 */
	public Map<String, String> holderNames() {
		return this.tracker.holderNames();
	}

	/**
	 * Return the registry.
	 * @return the registry
	 */
	public ZkLockRegistry getRegistry() {
		return this.registry;
	}

	/**
	 * Take locks with a minimum hold again after a {@link #stop stop}, as when a stopped
	 * application context is started again. A new template needs no start.
	 */
	@Override
	public void start() {
		this.tracker.minimumHolds.start();
	}

	/**
	 * Stop for a graceful shutdown: keep each hold still waiting for its minimum until it
	 * has passed, and call back once the last has ended (at once if none waits). Returns
	 * at once; the holds waited for are logged at INFO, with how long each has left. From
	 * now on a lock with a minimum hold is not taken ({@link LockAcquisitionException}
	 * with reason {@link LockAcquisitionException.Reason#CLOSED CLOSED}): its minimum
	 * could not be kept, and another instance will take it. Locks without one are taken
	 * as before, as the work of a shutting-down application still needs them. Spring's
	 * lifecycle processor waits for the callback at most for the shutdown phase's
	 * timeout; the holds still waiting then are released by {@link #close()}.
	 * @param callback what to run once no hold waits for its minimum
	 */
	@Override
	public void stop(Runnable callback) {
		this.tracker.minimumHolds.stop(callback);
	}

	/**
	 * Stop as {@link #stop(Runnable)} does, and wait until every hold waiting for its
	 * minimum has ended: at most as long as the longest of them has left. For use without
	 * Spring's lifecycle, before {@link #close()}.
	 */
	@Override
	public void stop() {
		this.tracker.minimumHolds.stop();
	}

	/**
	 * Return whether locks with a minimum hold are taken: from creation until a
	 * {@link #stop stop} or {@link #close() close}.
	 * @return whether the template is running
	 */
	@Override
	public boolean isRunning() {
		return this.tracker.minimumHolds.isRunning();
	}

	/**
	 * Return {@link MinimumHoldScheduler#SHUTDOWN_PHASE}: stopped after the task
	 * schedulers and executors, which let the work running at shutdown end, and before
	 * any bean is destroyed.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return MinimumHoldScheduler.SHUTDOWN_PHASE;
	}

	/**
	 * Release at once every hold still waiting for its minimum hold to pass (logged at
	 * WARN), and later ones as soon as their work ends. In an application context this
	 * comes after the graceful {@link #stop(Runnable) stop}, which has kept them as long
	 * as the shutdown phase allowed; without one, call {@link #stop()} first to keep
	 * them. Close does not wait itself: the application is going, and its ZooKeeper
	 * session with every lock.
	 */
	@Override
	public void close() {
		this.tracker.minimumHolds.close();
		this.tracker.lostLeases.close();
	}

}
