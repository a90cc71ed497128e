package dev.zklock.template;

import java.time.Duration;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException;
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
 * <p>The name is what metrics are tagged with; it must have few values (an expression, a method,
 * a purpose), never the key itself, which is unbounded. A reentrant call (the thread already
 * holds the key) is not observed again.
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
	 * Run work while holding the lock for a key.
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
		ZkLock lock = this.registry.obtain(key);
		if (lock.isHeldByCurrentThread()) {
			lock.lock();
			return runAndRelease(lock, task, null);
		}
		acquire(name, lock, (wait != null) ? wait : this.registry.getOptions().defaultWait());
		Observation held = Observation.createNotStarted(HELD_OBSERVATION, this.observationRegistry)
			.lowCardinalityKeyValue("lock.name", name)
			.start();
		return runAndRelease(lock, task, held);
	}

	/**
	 * Return the registry.
	 * @return the registry
	 */
	public ZkLockRegistry getRegistry() {
		return this.registry;
	}

	private void acquire(String name, ZkLock lock, Duration wait) {
		Observation observation = Observation.createNotStarted(ACQUIRE_OBSERVATION, this.observationRegistry)
			.lowCardinalityKeyValue("lock.name", name)
			.start();
		String outcome = "error";
		try {
			lock.acquire(wait);
			outcome = "acquired";
		}
		catch (LockAcquisitionException ex) {
			outcome = switch (ex.getReason()) {
				case HELD_LOCALLY, HELD_REMOTELY -> "timeout";
				default -> "error";
			};
			throw ex;
		}
		finally {
			observation.lowCardinalityKeyValue(KeyValue.of("outcome", outcome));
			observation.stop();
		}
	}

	private <T extends @Nullable Object, E extends Throwable> T runAndRelease(ZkLock lock, LockedTask<T, E> task,
			@Nullable Observation held) throws E {
		Throwable failure = null;
		try {
			return task.run();
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				// A lost lease must not hide the work's own exception
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
	}

}
