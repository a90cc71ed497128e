package dev.zklock.template;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.observation.DefaultZkLockAcquireObservationConvention;
import dev.zklock.template.observation.DefaultZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockObservationContext;
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
 * closes, after the task schedulers and executors ({@link MinimumHolds#SHUTDOWN_PHASE}),
 * and keeps the holds still waiting for their minimum until it has passed, within the
 * shutdown phase's timeout; meanwhile it takes no new lock with a minimum hold. See
 * {@link #stop(Runnable)} and {@link #close()}.
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

	/**
	 * The {@code outcome} of a wait whose caller skips the work while ZooKeeper is
	 * unavailable.
	 */
	private static final String SKIPPED_UNAVAILABLE = "skipped_unavailable";

	private static final ZkLockAcquireObservationConvention DEFAULT_ACQUIRE_CONVENTION = new DefaultZkLockAcquireObservationConvention();

	private static final ZkLockHeldObservationConvention DEFAULT_HELD_CONVENTION = new DefaultZkLockHeldObservationConvention();

	private static final Log logger = LogFactory.getLog(ZkLockTemplate.class);

	private final ZkLockRegistry registry;

	private final ObservationRegistry observationRegistry;

	private final MinimumHolds minimumHolds = new MinimumHolds("ZkLockTemplate");

	private @Nullable ZkLockAcquireObservationConvention acquireObservationConvention;

	private @Nullable ZkLockHeldObservationConvention heldObservationConvention;

	/**
	 * The holds this template has now, for the names of the keys held. A set of holds,
	 * not a map by key: every hold of a contended key would otherwise write the same map
	 * bin under its lock, once taking the key and once giving it up, and the next holder
	 * would queue there behind the one before, each hand-off a second wait.
	 */
	private final Set<Hold> holds = ConcurrentHashMap.newKeySet();

	/** Orders the holds, so that a key held several times is named by its oldest. */
	private final AtomicLong holdSequence = new AtomicLong();

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 * @param observationRegistry the observation registry,
	 * {@link ObservationRegistry#NOOP} to observe nothing
	 */
	public ZkLockTemplate(ZkLockRegistry registry, ObservationRegistry observationRegistry) {
		this.registry = registry;
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Name and tag the waits for a lock with a custom convention rather than the default
	 * {@link DefaultZkLockAcquireObservationConvention}. Set it before the template is
	 * used.
	 * @param observationConvention the convention, {@code null} for the default
	 */
	public void setAcquireObservationConvention(@Nullable ZkLockAcquireObservationConvention observationConvention) {
		this.acquireObservationConvention = observationConvention;
	}

	/**
	 * Name and tag the holds with a custom convention rather than the default
	 * {@link DefaultZkLockHeldObservationConvention}. Set it before the template is used.
	 * @param observationConvention the convention, {@code null} for the default
	 */
	public void setHeldObservationConvention(@Nullable ZkLockHeldObservationConvention observationConvention) {
		this.heldObservationConvention = observationConvention;
	}

	/**
	 * Run work on this thread while holding the lock for a key.
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param key the key
	 * @param wait the longest wait; {@link Duration#ZERO} makes one attempt; {@code null}
	 * uses the registry's default wait
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if the lock was not acquired
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(String name, String key, @Nullable Duration wait,
			LockedTask<T, E> task) throws E {
		return execute(LockDefinition.of(name, wait), List.of(key), task);
	}

	/**
	 * Run work on this thread while holding the locks of several keys, taken in one
	 * global order under one wait, all or nothing.
	 * @param <T> the result type
	 * @param <E> what the work may throw
	 * @param name the low-cardinality name of the lock, for metrics
	 * @param keys the keys, at least one
	 * @param wait the longest wait for all of them; {@link Duration#ZERO} makes one
	 * attempt per key; {@code null} uses the registry's default wait
	 * @param task the work
	 * @return the work's result
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws E what the work throws
	 */
	public <T extends @Nullable Object, E extends Throwable> T execute(String name, Collection<String> keys,
			@Nullable Duration wait, LockedTask<T, E> task) throws E {
		return execute(LockDefinition.of(name, wait), keys, task);
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
		Holding holding = Holding.of(this.registry, definition, keys);
		if (definition.holdAtLeast() == null && holding.isHeldByCurrentThread()) {
			// Reentrant: held already, so neither waited for nor observed again
			holding.acquire(waitOf(definition));
			Hold hold = new Hold(definition, holding, keys, null);
			return hold.run(task);
		}
		Hold hold = new Hold(definition, holding, keys, acquire(definition, holding, keys));
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
	 * @param wait the longest wait; see
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
			Collection<String> keys, @Nullable Duration wait, LockedTask<S, E> task) throws E {
		return executeAsync(LockDefinition.of(name, wait), keys, task);
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
		Holding holding = forWorkThatOutlivesTheCall(definition, keys);
		Hold hold = new Hold(definition, holding, keys, acquire(definition, holding, keys));
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
			lease = holding.toLease();
		}
		catch (RuntimeException ex) {
			release(holding, hold, ex);
			throw ex;
		}
		// Whatever the stage is (some throw from isDone()), the release follows its
		// completion
		try {
			stage.whenComplete((result, failure) -> hold.endLater(lease));
		}
		catch (RuntimeException | Error ex) {
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
	 * @param wait the longest wait; see
	 * {@link #execute(String, Collection, Duration, LockedTask)}
	 * @return the lease, held
	 * @throws LockAcquisitionException if a lock was not acquired; none is held then
	 * @throws IllegalStateException if this thread already holds one of the keys: a lease
	 * cannot share a thread's hold
	 */
	public ZkLease acquireLease(String name, Collection<String> keys, @Nullable Duration wait) {
		return acquireLease(LockDefinition.of(name, wait), keys);
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
		Holding holding = forWorkThatOutlivesTheCall(definition, keys);
		Hold hold = new Hold(definition, holding, keys, acquire(definition, holding, keys));
		try {
			// Several keys' tokens can only be read while this thread holds them
			LockContext context = (keys.size() == 1) ? null : hold.snapshot();
			ZkLease lease = holding.toLease();
			return new ObservedLease(lease, hold, (context != null) ? context
					: HeldLockContext.of(definition.name(), hold.keys, (key) -> lease.fencingToken(), lease::state));
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
		return LockContextHolder.runWith(observed.context, task);
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
		Map<String, Hold> oldest = new HashMap<>();
		for (Hold hold : this.holds) {
			for (String key : hold.keys) {
				oldest.merge(key, hold, (one, other) -> (one.sequence < other.sequence) ? one : other);
			}
		}
		Map<String, String> names = new TreeMap<>();
		oldest.forEach((key, hold) -> names.put(key, hold.definition.name()));
		return names;
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
		this.minimumHolds.start();
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
		this.minimumHolds.stop(callback);
	}

	/**
	 * Stop as {@link #stop(Runnable)} does, and wait until every hold waiting for its
	 * minimum has ended: at most as long as the longest of them has left. For use without
	 * Spring's lifecycle, before {@link #close()}.
	 */
	@Override
	public void stop() {
		this.minimumHolds.stop();
	}

	/**
	 * Return whether locks with a minimum hold are taken: from creation until a
	 * {@link #stop stop} or {@link #close() close}.
	 * @return whether the template is running
	 */
	@Override
	public boolean isRunning() {
		return this.minimumHolds.isRunning();
	}

	/**
	 * Return {@link MinimumHolds#SHUTDOWN_PHASE}: stopped after the task schedulers and
	 * executors, which let the work running at shutdown end, and before any bean is
	 * destroyed.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return MinimumHolds.SHUTDOWN_PHASE;
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
		this.minimumHolds.close();
	}

	/**
	 * What is taken for work that outlives the call must become a lease. A read or write
	 * side cannot: it belongs to its thread. A lease cannot share a thread's hold, so the
	 * thread must hold none of the keys' exclusive locks; with a minimum hold this is a
	 * busy lock, not a misuse: such a lock is not reentrant. A permit is a lease from the
	 * start.
	 */
	private Holding forWorkThatOutlivesTheCall(LockDefinition definition, Collection<String> keys) {
		if (definition.permits() == 0 && definition.mode() != LockMode.EXCLUSIVE) {
			throw new IllegalArgumentException("Lock '" + definition.name() + "' takes the " + definition.mode()
					+ " side of a read/write lock, which belongs to the thread that took it and cannot be held for "
					+ "work that outlives the call; run the work on this thread (execute), or take an exclusive lock");
		}
		Holding holding = Holding.of(this.registry, definition, keys);
		String held = (definition.permits() == 0 && definition.holdAtLeast() == null) ? heldHere(keys) : null;
		if (held != null) {
			throw new IllegalStateException("Cannot lock '" + held + "' for work that outlives this call: the thread "
					+ Thread.currentThread().getName() + " already holds it, and its hold ends before that work "
					+ "does. Start the work outside the code that holds '" + held + "'.");
		}
		return holding;
	}

	private Duration waitOf(LockDefinition definition) {
		Duration wait = definition.maxWait();
		return (wait != null) ? wait : this.registry.getOptions().defaultWait();
	}

	/**
	 * Return the first of the keys this thread holds already, if any.
	 */
	private @Nullable String heldHere(Collection<String> keys) {
		for (String key : keys) {
			if (this.registry.obtain(key).isHeldByCurrentThread()) {
				return key;
			}
		}
		return null;
	}

	/**
	 * Acquire under the {@code zklock.acquire} observation and start the
	 * {@code zklock.held} one. If observing fails once the locks are taken, they are
	 * given back before the failure propagates: no path leaves them held with nobody to
	 * release them.
	 * @return the started hold observation
	 */
	private Observation acquire(LockDefinition definition, Holding holding, Collection<String> keys) {
		Observation observation = ZkLockObservationDocumentation.LOCK_ACQUIRE
			.observation(this.acquireObservationConvention, DEFAULT_ACQUIRE_CONVENTION,
					() -> new ZkLockObservationContext(ZkLockObservationDocumentation.LOCK_ACQUIRE, definition.name(),
							definition.kind(), keys),
					this.observationRegistry)
			.start();
		try {
			if (definition.holdAtLeast() != null) {
				notStopped(definition, keys);
			}
			if (definition.holdAtLeast() != null && definition.permits() == 0) {
				notHeldHere(definition, keys);
			}
			holding.acquire(waitOf(definition));
		}
		catch (LockAcquisitionException ex) {
			String outcome = switch (ex.getReason()) {
				case HELD_LOCALLY, HELD_REMOTELY -> definition.whenBusy().outcome();
				// Skipped, as the annotation skips, and counted apart: an outage
				case NOT_CONNECTED, NO_REPLY ->
					(definition.whenBusy() == LockDefinition.WhenBusy.SKIP) ? SKIPPED_UNAVAILABLE : "error";
				default -> "error";
			};
			stop(observation, outcome);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			stop(observation, "error");
			throw ex;
		}
		try {
			stop(observation, "acquired");
			return ZkLockObservationDocumentation.LOCK_HELD
				.observation(this.heldObservationConvention, DEFAULT_HELD_CONVENTION,
						() -> new ZkLockObservationContext(ZkLockObservationDocumentation.LOCK_HELD, definition.name(),
								definition.kind(), keys),
						this.observationRegistry)
				.start();
		}
		catch (RuntimeException | Error ex) {
			release(holding, null, ex);
			throw ex;
		}
	}

	/**
	 * Stop a wait's observation with its outcome, which the convention turns into a tag.
	 * An observation that is off (no registry, or filtered out by a predicate) has a
	 * context of its own, and nothing to record.
	 */
	private static void stop(Observation observation, String outcome) {
		if (observation.getContext() instanceof ZkLockObservationContext context) {
			context.setOutcome(outcome);
		}
		observation.stop();
	}

	/**
	 * A stopped template takes no lock with a minimum hold: the application is shutting
	 * down, and could not keep it.
	 */
	private void notStopped(LockDefinition definition, Collection<String> keys) {
		if (!this.minimumHolds.isRunning()) {
			String key = keys.iterator().next();
			throw new LockAcquisitionException(key, this.registry.lockPath(key), Duration.ZERO,
					LockAcquisitionException.Reason.CLOSED, "the application is stopping, and a lock held at least "
							+ definition.holdAtLeast() + " is not taken then: its minimum hold could not be kept",
					null);
		}
	}

	/**
	 * A lock with a minimum hold is not reentrant: the hold outlives the work, so a
	 * thread that holds a key already cannot take it again; it finds the lock busy.
	 */
	private void notHeldHere(LockDefinition definition, Collection<String> keys) {
		String held = heldHere(keys);
		if (held != null) {
			throw new LockAcquisitionException(held, this.registry.lockPath(held), Duration.ZERO,
					LockAcquisitionException.Reason.HELD_LOCALLY,
					"by this very thread, and a lock held at least " + definition.holdAtLeast() + " is not reentrant",
					null);
		}
	}

	/**
	 * Release a hold of this thread. A lost lease must not hide the work's own exception:
	 * it is attached to it instead.
	 */
	private static void release(Holding holding, @Nullable Hold hold, @Nullable Throwable failure) {
		try {
			holding.release();
		}
		catch (RuntimeException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
		finally {
			if (hold != null) {
				hold.finished();
			}
		}
	}

	/**
	 * Release a hold at the end of asynchronous work, on whichever thread ended it:
	 * nobody is left to throw to, so a lost lease is logged (and counted by the
	 * registry's listeners).
	 */
	private static void releaseLater(ZkLease lease, Hold hold) {
		try {
			lease.release();
		}
		catch (RuntimeException ex) {
			logger.warn("Releasing " + lease + " at the end of asynchronous work: " + ex.getMessage());
		}
		finally {
			hold.finished();
		}
	}

	/**
	 * One hold of some keys by this template: the work's context while it runs, and its
	 * end, now or, with a minimum hold, once that has passed.
	 */
	private final class Hold extends HeldLockContext {

		private final LockDefinition definition;

		private final Holding holding;

		private final List<String> keys;

		private final @Nullable Observation held;

		private final long acquiredAt = System.nanoTime();

		private final long sequence;

		Hold(LockDefinition definition, Holding holding, Collection<String> keys, @Nullable Observation held) {
			this(definition, holding, List.copyOf(keys), held);
		}

		private Hold(LockDefinition definition, Holding holding, List<String> keys, @Nullable Observation held) {
			super(definition.name(), keys);
			this.definition = definition;
			this.holding = holding;
			this.keys = keys;
			this.held = held;
			// A key held already by an outer hold (or an earlier reader) keeps that name
			this.sequence = (held != null) ? ZkLockTemplate.this.holdSequence.incrementAndGet() : 0;
			if (held != null) {
				ZkLockTemplate.this.holds.add(this);
			}
		}

		<T extends @Nullable Object, E extends Throwable> T run(LockedTask<T, E> task) throws E {
			T result;
			Interruption interruption = this.definition.revocable() ? new Interruption(this.holding) : null;
			try {
				try {
					result = LockContextHolder.runWith(this, task);
				}
				finally {
					if (interruption != null) {
						interruption.disarm();
					}
				}
			}
			catch (Throwable ex) {
				end(ex);
				throw ex;
			}
			end(null);
			return result;
		}

		@Override
		public boolean isRevocationRequested() {
			return this.definition.revocable() && this.holding.isRevocationRequested();
		}

		@Override
		public GuardedTransaction guardedTransaction() {
			return this.holding.guardedTransaction();
		}

		/**
		 * As this thread's context: tokens and state are read from its hold when asked.
		 */
		@Override
		long token(String key) {
			return this.holding.fencingToken(key);
		}

		@Override
		LeaseState state() {
			return this.holding.leaseState();
		}

		/**
		 * A context that outlives this thread's hold: the tokens are read now.
		 */
		LockContext snapshot() {
			Map<String, Long> tokens = new HashMap<>();
			for (String key : this.keys) {
				tokens.put(key, this.holding.fencingToken(key));
			}
			return HeldLockContext.of(this.definition.name(), this.keys, tokens::get, this.holding::leaseState);
		}

		/**
		 * End this thread's hold: release it now, or hand it to a lease released once the
		 * minimum hold has passed.
		 */
		void end(@Nullable Throwable failure) {
			Duration minimum = this.definition.holdAtLeast();
			if (minimum == null || System.nanoTime() - this.acquiredAt >= minimum.toNanos()
					|| this.holding.leaseState() == LeaseState.LOST) {
				release(this.holding, this, failure);
				return;
			}
			ZkLease lease;
			try {
				lease = this.holding.toLease();
			}
			catch (RuntimeException ex) {
				release(this.holding, this, failure);
				if (failure != null) {
					// The work's own failure is what the caller must see
					failure.addSuppressed(ex);
					return;
				}
				throw ex;
			}
			endLater(lease);
		}

		/**
		 * The hold has ended: stop observing it, and forget it as its keys' holder.
		 */
		void finished() {
			if (this.held != null) {
				ZkLockTemplate.this.holds.remove(this);
				this.held.stop();
			}
		}

		/**
		 * End the hold of a lease, from any thread: now, or once the minimum hold has
		 * passed.
		 */
		void endLater(ZkLease lease) {
			Duration minimum = this.definition.holdAtLeast();
			if (minimum == null) {
				releaseLater(lease, this);
				return;
			}
			if (!ZkLockTemplate.this.minimumHolds.deferRelease(this.acquiredAt + minimum.toNanos(),
					this.definition.name(), this.keys, () -> releaseLater(lease, this))) {
				releaseLater(lease, this);
			}
		}

	}

	/**
	 * Interrupts the thread running revocable work when revocation of its hold is
	 * requested, once, and only while the work runs: a request that comes after it ended
	 * must not reach whatever the thread does next.
	 */
	private static final class Interruption implements Runnable {

		private final Thread thread = Thread.currentThread();

		private final ReentrantLock lock = new ReentrantLock();

		/** Guarded by lock. */
		private boolean armed = true;

		Interruption(Holding holding) {
			holding.onRevocationRequested(this);
		}

		@Override
		public void run() {
			this.lock.lock();
			try {
				if (this.armed) {
					this.armed = false;
					this.thread.interrupt();
				}
			}
			finally {
				this.lock.unlock();
			}
		}

		void disarm() {
			this.lock.lock();
			try {
				this.armed = false;
			}
			finally {
				this.lock.unlock();
			}
		}

	}

	/**
	 * A lease whose hold is observed until it is released, and which knows its context.
	 */
	private static final class ObservedLease implements ZkLease {

		private final ZkLease lease;

		private final Hold hold;

		private final LockContext context;

		private final AtomicBoolean released = new AtomicBoolean();

		ObservedLease(ZkLease lease, Hold hold, LockContext context) {
			this.lease = lease;
			this.hold = hold;
			this.context = context;
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
		public GuardedTransaction guardedTransaction() {
			return this.lease.guardedTransaction();
		}

		/**
		 * Release the lease, or with a minimum hold, have it released once that has
		 * passed (a lost lease is then logged, as nobody is left to throw to).
		 */
		@Override
		public void release() {
			if (!this.released.compareAndSet(false, true)) {
				return;
			}
			if (this.hold.definition.holdAtLeast() != null) {
				this.hold.endLater(this.lease);
				return;
			}
			end();
		}

		void releaseNow() {
			if (this.released.compareAndSet(false, true)) {
				end();
			}
		}

		private void end() {
			try {
				this.lease.release();
			}
			finally {
				this.hold.finished();
			}
		}

		@Override
		public String toString() {
			return this.lease.toString();
		}

	}

}
