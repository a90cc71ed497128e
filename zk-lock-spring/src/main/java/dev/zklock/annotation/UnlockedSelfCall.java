package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares that a method calls some of its bean's own
 * {@link DistributedLock @DistributedLock} or
 * {@link DistributedSemaphore @DistributedSemaphore} methods through {@code this}, and
 * that those calls are meant to run without the lock.
 *
 * <p>
 * A locked method is locked by the proxy Spring puts in front of the bean; a call from
 * the bean to itself does not go through the proxy, and the called method runs without
 * its lock. The application therefore fails to start when a bean calls one of its own
 * locked methods through {@code this} (directly, in a lambda, through a method reference
 * such as {@code this::restock}, or from an inner or anonymous class through the
 * enclosing instance), naming the caller and the call's line. When running unlocked is
 * what the caller wants (it already holds the lock the method would take, say), this
 * annotation on the caller says so where a reviewer sees it:
 *
 * <pre class="code">
 * &#064;DistributedLock(key = "'stock:' + #sku")
 * public void restock(String sku, int quantity) { ... }
 *
 * &#064;DistributedLock(key = "'stock:' + #sku")
 * &#064;UnlockedSelfCall("restock") // already holds 'stock:' + sku, the key restock locks
 * public void restockTwice(String sku, int quantity) {
 *     restock(sku, quantity);
 *     restock(sku, quantity);
 * }
 * </pre>
 *
 * <p>
 * It names the locked methods it covers, by name (every overload of a name); a call from
 * the same method to a locked method it does not name still fails startup. It covers the
 * method's own calls and those of the lambdas and local or anonymous classes written in
 * it. Calls through the proxy (an injected reference to the bean itself,
 * {@code @Lazy MyService self} or {@code ObjectProvider<MyService>}) are locked and need
 * no annotation.
 *
 * <p>
 * It covers {@link LeaderOnly @LeaderOnly} methods alike: a call through {@code this}
 * runs the method on this instance whether it leads or not, which the caller may mean (it
 * is leader work itself, of the same group, say).
 *
 * @author zk-lock
 * @see DistributedLock
 */
@Target({ ElementType.METHOD, ElementType.CONSTRUCTOR })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface UnlockedSelfCall {

	/**
	 * The names of the locked methods of this bean that the annotated method calls
	 * through {@code this} on purpose, knowing they run without their lock.
	 * @return the method names
	 */
	String[] value();

}
