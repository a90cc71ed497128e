package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.zklock.template.LockContext;
import dev.zklock.template.LockMode;

/**
 * Runs the annotated method only while this JVM holds the ZooKeeper lock for a key.
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'stock:' + #sku", waitMs = 2000)
 * &#064;Transactional
 * public void order(String sku, int quantity) { ... }
 * </pre>
 *
 * <p>
 * The lock is reentrant for the calling thread, taken before a {@code @Transactional}
 * transaction on the same method begins and released after it commits or rolls back. When
 * it cannot be taken within the wait, the method does not run and a
 * {@link dev.zklock.core.LockAcquisitionException} is thrown whose message names the key,
 * the ZooKeeper path, the time waited and the reason; or, as {@link #onLocked()} and
 * {@link #fallback()} say, the call is skipped or a fallback runs. A scheduled job that
 * runs on every instance uses both with a minimum hold:
 *
 * <pre class="code">
 * &#064;Scheduled(cron = "0 0 2 * * *")
 * &#064;DistributedLock(key = "'nightly-report'", waitAtMost = "0s", onLocked = OnLocked.SKIP, holdAtLeast = "30s")
 * public void nightlyReport() { ... }
 * </pre>
 *
 * <p>
 * Inside the method, {@link LockContext#current()} gives the lock held for the
 * invocation, with its fencing token.
 *
 * <p>
 * By default the lock is exclusive. With {@link #mode()} {@link LockMode#READ READ} or
 * {@link LockMode#WRITE WRITE} the method takes a side of the key's read/write lock
 * instead: readers of a key run together, across JVMs, and a writer runs alone:
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'catalog:' + #id", mode = LockMode.READ)
 * public Catalog read(String id) { ... }
 *
 * &#064;DistributedLock(key = "'catalog:' + #id", mode = LockMode.WRITE)
 * public void publish(String id, Catalog catalog) { ... }
 * </pre>
 *
 * <p>
 * The lock lasts as long as the method's work: until it returns; for a method returning a
 * {@code CompletionStage}, until the stage completes; for a method returning a reactive
 * type ({@code Mono}, {@code Flux}), from each subscription until the stream terminates
 * or is cancelled; for a Kotlin {@code suspend} function, until its coroutine ends. A
 * read or write side belongs to the thread that took it, so {@code READ} and
 * {@code WRITE} are only for methods whose work ends when they return. A key expression
 * that yields a collection or an array locks every element (in {@code READ}/{@code WRITE}
 * mode, that side of each), in one global order, all or nothing.
 *
 * <p>
 * May be declared on a public or protected method of a bean, on an interface method it
 * implements, or on a superclass method it overrides. Whatever cannot work fails the
 * application's startup with a message naming the method: a private, static or final
 * method, a final class under class-based proxying, a return type whose work outlives the
 * call in a way the lock cannot follow, and a key expression that does not parse or
 * cannot evaluate; and what contradicts itself: {@code READ} or {@code WRITE} with a
 * return type whose work outlives the call or with {@link #holdAtLeast()}, both this and
 * {@link DistributedSemaphore @DistributedSemaphore} on one method, and the same key
 * expression locked exclusively by one method and with {@code READ}/{@code WRITE} (or as
 * a semaphore) by another. A call from the bean to itself through {@code this} is not
 * intercepted, as with {@code @Transactional}.
 *
 * @author zk-lock
 * @see LockMode
 * @see DistributedSemaphore
 * @see EnableDistributedLocks
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * The lock key, a SpEL expression evaluated like {@code @Cacheable}'s key: method
	 * arguments by name ({@code #orderId}, {@code #order.id}) or position ({@code #p0},
	 * {@code #a0}), {@code #root.method}, {@code #root.target}, {@code #root.args},
	 * quoted literals ({@code 'inventory'}) and bean references ({@code @bean}). The
	 * value must not be null or blank, and becomes one ZooKeeper path segment under the
	 * lock root path; a collection or an array (for example {@code "{'account:' + #from,
	 * 'account:' + #to}"}) locks each element.
	 * @return the key expression
	 */
	String key();

	/**
	 * The lock's name in metrics (the {@code lock.name} tag), logs and the
	 * {@code zklocks} endpoint. Defaults to {@code SimpleClassName.methodName}. It must
	 * have few values: a purpose, never the key, which is unbounded.
	 * @return the name, empty for the default
	 */
	String name() default "";

	/**
	 * How long to wait for the lock, as a duration: {@code "2s"}, {@code "500ms"},
	 * {@code "PT2S"}, or a placeholder such as {@code "${app.lock-wait:2s}"}, resolved
	 * once at startup. {@code "0s"} makes one attempt. Unset (the default), the wait is
	 * {@link #waitMs()}, and if that is unset too, {@code zklock.lock.default-wait}.
	 * Setting both this and {@code waitMs} fails startup. (Java forbids an annotation
	 * attribute named {@code wait}: {@code Object.wait()} is final.)
	 * @return the wait, empty for unset
	 */
	String waitAtMost() default "";

	/**
	 * How long to wait for the lock, in milliseconds: {@code -1} (the default) uses
	 * {@link #waitAtMost()} if set, else {@code zklock.lock.default-wait}; {@code 0}
	 * makes one attempt; a positive value waits at most that long.
	 * @return the wait in milliseconds
	 */
	long waitMs() default -1;

	/**
	 * What to do when the lock is busy (another thread or participant held it for the
	 * whole wait): throw a {@link dev.zklock.core.LockAcquisitionException} (the
	 * default), or skip the method. {@link OnLocked#SKIP} also skips the method while
	 * ZooKeeper cannot be reached or does not answer (the lock is unavailable), without
	 * an exception: the outage is logged once per connection state change, and each skip
	 * is counted apart ({@code outcome="skipped_unavailable"}), so that it is never
	 * mistaken for "another instance is running it". With {@link OnLocked#THROW} an
	 * unavailable lock is thrown, as a busy one. Ignored when {@link #fallback()} is set.
	 * @return the policy
	 */
	OnLocked onLocked() default OnLocked.THROW;

	/**
	 * The name of a method of the same bean to call instead when the lock is not
	 * acquired, busy or unavailable: it takes the same parameters, optionally followed by
	 * a {@link dev.zklock.core.LockAcquisitionException}, and returns a type the
	 * annotated method may return. It is called on the target object, not through the
	 * proxy, so it may be private; its result (or exception) becomes the call's. Checked
	 * at startup.
	 * @return the fallback method name, empty for none
	 */
	String fallback() default "";

	/**
	 * Keep the lock at least this long after it was acquired, even when the method ends
	 * sooner, as ShedLock's {@code lockAtLeastFor}: a scheduled job that runs on every
	 * instance then runs once per tick even when their clocks or schedules drift by less
	 * than this. A duration ({@code "30s"}, {@code "PT30S"}) or a placeholder. After the
	 * method ends, the library holds the rest of the time and releases the lock itself.
	 * Such a lock is not reentrant: a call while it is held, from this thread too, finds
	 * it busy. Only for {@link LockMode#EXCLUSIVE}: a read or write side belongs to the
	 * thread that took it and cannot be kept after the method ends, so setting it with
	 * {@code READ} or {@code WRITE} fails startup.
	 * @return the minimum hold, empty for none
	 */
	String holdAtLeast() default "";

	/**
	 * Let another process take the lock back by request: when someone asks for the lock's
	 * revocation (Curator's {@code Revoker.attemptRevoke} on this JVM's node,
	 * {@code ZkLockRegistry.requestRevocation(key)}, or the {@code zklocks} endpoint's
	 * {@code DELETE} operation), the thread running the method is interrupted, once, and
	 * {@link LockContext#isRevocationRequested()} turns true. The method decides what to
	 * do: an interruptible wait or I/O in it ends with {@link InterruptedException} (or
	 * its unchecked kin); code that never looks at the interrupt runs on to its end. The
	 * lock stays held until the method returns: a request takes nothing away by itself. A
	 * request that comes after the method returned interrupts nothing. Only for methods
	 * whose work runs on the calling thread: a method returning a
	 * {@code CompletionStage}, a reactive type or a Kotlin {@code suspend} function fails
	 * startup with it. Without it (the default), requests are ignored.
	 * @return whether a revocation request interrupts the method
	 */
	boolean revocable() default false;

	/**
	 * What happens to the method's work when its lock is lost while it runs (the
	 * ZooKeeper session expired, or another client deleted the lock's node): by default
	 * ({@link OnLost#CONTINUE}) the method runs on, and the registry's
	 * {@code LostLockPolicy} decides what its release does. With
	 * {@link OnLost#INTERRUPT}, the work is stopped as soon as this JVM hears of it: the
	 * thread running a synchronous method is interrupted (the call then throws
	 * {@link dev.zklock.core.LockLostException}); a {@code CompletionStage} the method
	 * returned is completed with that exception; a {@code Mono}, {@code Flux} or suspend
	 * function is cancelled and fails with it. Before a write, check the lock with
	 * {@link LockContext#checkHeld()} as well, and fence the write with the token: a
	 * pause can hide the loss from this JVM until after the write.
	 * @return what happens to the work when the lock is lost
	 */
	OnLost onLost() default OnLost.CONTINUE;

	/**
	 * Which lock to take on the key: the exclusive lock (the default), or the read or
	 * write side of the key's read/write lock. Readers of a key run together, across
	 * JVMs; a writer excludes readers and other writers. A method that holds the write
	 * side may call one that reads the same key (a downgrade); a method that holds only
	 * the read side cannot call one that writes it (an upgrade), which throws
	 * {@link IllegalStateException} at once rather than wait for ever for its own read.
	 * {@code READ} and {@code WRITE} are for methods whose work ends when they return,
	 * without {@link #holdAtLeast()}: anything else fails startup.
	 * <p>
	 * The read/write lock and the exclusive lock are different recipes on the same
	 * ZooKeeper path and do not exclude each other: lock a key one way everywhere. An
	 * application that declares one key expression with both fails to start, naming both
	 * methods.
	 * @return the mode
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

}
