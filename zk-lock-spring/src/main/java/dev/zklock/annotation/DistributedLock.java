package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this JVM holds the ZooKeeper lock for a key.
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'stock:' + #sku", waitMs = 2000)
 * &#064;Transactional
 * public void order(String sku, int quantity) { ... }
 * </pre>
 *
 * <p>The lock is reentrant for the calling thread, taken before a {@code @Transactional}
 * transaction on the same method begins and released after it commits or rolls back. When it
 * cannot be taken within the wait, the method does not run and a
 * {@link dev.zklock.core.LockAcquisitionException} is thrown whose message names the key, the
 * ZooKeeper path, the time waited and the reason.
 *
 * <p>The lock lasts as long as the method's work: until it returns; for a method returning a
 * {@code CompletionStage}, until the stage completes; for a method returning a reactive type
 * ({@code Mono}, {@code Flux}), from each subscription until the stream terminates or is
 * cancelled; for a Kotlin {@code suspend} function, until its coroutine ends. A key expression that yields a collection or an array locks every element, in one
 * global order, all or nothing.
 *
 * <p>May be declared on a public or protected method of a bean, on an interface method it
 * implements, or on a superclass method it overrides. Whatever cannot work fails the
 * application's startup with a message naming the method: a private, static or final method, a
 * final class under class-based proxying, a return type whose work outlives the call in a way the
 * lock cannot follow, and a key expression that does not parse or cannot evaluate. A call from the
 * bean to itself through {@code this} is not intercepted, as with {@code @Transactional}.
 *
 * @author zk-lock
 * @see EnableDistributedLocks
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * The lock key, a SpEL expression evaluated like {@code @Cacheable}'s key: method arguments
	 * by name ({@code #orderId}, {@code #order.id}) or position ({@code #p0}, {@code #a0}),
	 * {@code #root.method}, {@code #root.target}, {@code #root.args}, quoted literals
	 * ({@code 'inventory'}) and bean references ({@code @bean}). The value must not be null or
	 * blank, and becomes one ZooKeeper path segment under the lock root path; a collection or an
	 * array (for example {@code "{'account:' + #from, 'account:' + #to}"}) locks each element.
	 * @return the key expression
	 */
	String key();

	/**
	 * How long to wait for the lock, in milliseconds: {@code -1} (the default) uses
	 * {@code zklock.lock.default-wait}, {@code 0} makes one attempt, a positive value waits at
	 * most that long.
	 * @return the wait in milliseconds
	 */
	long waitMs() default -1;

}
