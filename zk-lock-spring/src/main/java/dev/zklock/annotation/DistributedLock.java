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
 * <p>May be declared on a class's method, on an interface method it implements, or on a
 * superclass method it overrides. The key expression is parsed and checked when the bean is
 * created: a syntax error or a reference to a parameter the method does not have stops the
 * application from starting.
 *
 * @author zk-lock
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
	 * blank, and becomes one ZooKeeper path segment under the lock root path.
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
