package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.zklock.template.LockContext;

/**
 * Runs the annotated method only while this JVM holds one of a key's permits: at most
 * {@link #permits()} calls run at once, across every JVM that declares the same key and
 * permits.
 *
 * <pre class="code">
 * &#064;DistributedSemaphore(key = "'pdf-render'", permits = 4, waitAtMost = "10s")
 * public byte[] render(Document document) { ... }
 * </pre>
 *
 * <p>
 * The ZooKeeper recipe is a counting semaphore, wire-compatible with Curator's
 * {@code InterProcessSemaphoreV2} on the same path. ZooKeeper keeps the leases, not the
 * number of permits: every participant must declare the same {@code permits} for a key
 * (an application that declares one key expression with two numbers fails to start). A
 * permit is not reentrant: a semaphore method that calls another on the same key, through
 * the proxy, takes a second permit.
 *
 * <p>
 * Key, wait, busy handling and fallback work as for
 * {@link DistributedLock @DistributedLock}: the key is a SpEL expression with the same
 * rules, evaluated once per call, and must give one key (a collection fails the call,
 * before the method runs). When no permit frees up within the wait, a
 * {@link dev.zklock.core.LockAcquisitionException} is thrown, or the call is skipped or a
 * fallback runs. A permit is a lease that any thread may give back, so a method returning
 * a {@code CompletionStage}, a reactive type or a Kotlin {@code suspend} function keeps
 * its permit until its work ends, as a lock would. Inside the method,
 * {@link LockContext#current()} gives the key and the fencing token of the permit's node;
 * with several permits, several holders run at once, so that token does not order them.
 *
 * <p>
 * What cannot work fails the application's startup with a message naming the method: the
 * same as for {@code @DistributedLock}, plus {@code permits} below 1, both annotations on
 * one method, and the same key expression used by a {@code @DistributedLock} (a different
 * recipe on the same path, which the semaphore would not exclude).
 *
 * @author zk-lock
 * @see DistributedLock
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedSemaphore {

	/**
	 * The semaphore key, a SpEL expression with the rules of
	 * {@link DistributedLock#key()}; it must evaluate to one key, never null or blank.
	 * @return the key expression
	 */
	String key();

	/**
	 * How many calls may hold a permit at once, across all JVMs: at least 1. Every
	 * participant must use the same number for a key.
	 * @return the number of permits
	 */
	int permits();

	/**
	 * The semaphore's name in metrics (the {@code lock.name} tag, with
	 * {@code kind="semaphore"}), logs and the {@code zklocks} endpoint. Defaults to
	 * {@code SimpleClassName.methodName}. It must have few values: a purpose, never the
	 * key.
	 * @return the name, empty for the default
	 */
	String name() default "";

	/**
	 * How long to wait for a permit, as a duration ({@code "2s"}, {@code "PT2S"}) or a
	 * placeholder, as {@link DistributedLock#waitAtMost()}. Setting both this and
	 * {@link #waitMs()} fails startup.
	 * @return the wait, empty for unset
	 */
	String waitAtMost() default "";

	/**
	 * How long to wait for a permit, in milliseconds: {@code -1} (the default) uses
	 * {@link #waitAtMost()} if set, else {@code zklock.lock.default-wait}; {@code 0}
	 * makes one attempt; a positive value waits at most that long.
	 * @return the wait in milliseconds
	 */
	long waitMs() default -1;

	/**
	 * What to do when every permit stayed taken for the whole wait: throw a
	 * {@link dev.zklock.core.LockAcquisitionException} (the default), or skip the method,
	 * as {@link DistributedLock#onLocked()}, which also skips while ZooKeeper is
	 * unavailable. Ignored when {@link #fallback()} is set.
	 * @return the policy
	 */
	OnLocked onLocked() default OnLocked.THROW;

	/**
	 * The name of a method of the same bean to call instead when no permit is acquired,
	 * with the rules of {@link DistributedLock#fallback()}.
	 * @return the fallback method name, empty for none
	 */
	String fallback() default "";

	/**
	 * What happens to the method's work when its permit is lost while it runs (the
	 * ZooKeeper session expired): see {@link DistributedLock#onLost()}. A permit's node
	 * is not watched, so only the loss of the session is heard.
	 * @return what happens to the work when the permit is lost
	 */
	OnLost onLost() default OnLost.CONTINUE;

}
