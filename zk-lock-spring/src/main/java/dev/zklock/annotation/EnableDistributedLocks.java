package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;

/**
 * Enables {@link DistributedLock @DistributedLock} and
 * {@link DistributedSemaphore @DistributedSemaphore} in a Spring application without
 * Spring Boot (the Boot starter enables it by itself), as
 * {@code @EnableTransactionManagement} enables {@code @Transactional}. The application
 * provides a {@link dev.zklock.core.registry.ZkLockRegistry ZkLockRegistry} bean (and may
 * provide a {@link dev.zklock.template.ZkLockTemplate ZkLockTemplate}).
 *
 * <pre class="code">
 * &#064;Configuration
 * &#064;EnableDistributedLocks
 * class LockConfig {
 *
 *     &#064;Bean(destroyMethod = "close")
 *     CuratorFramework curator() { ... }
 *
 *     &#064;Bean
 *     ZkLockRegistry zkLockRegistry(CuratorFramework curator) {
 *         return new ZkLockRegistry(curator);
 *     }
 * }
 * </pre>
 *
 * @author zk-lock
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DistributedLocksConfigurationSelector.class)
public @interface EnableDistributedLocks {

	/**
	 * Whether to proxy classes (CGLIB subclasses) rather than interfaces. Applies to
	 * every bean the application's auto-proxy creator proxies, for {@code @Transactional}
	 * and {@code @Async} too, as with {@code @EnableTransactionManagement}.
	 * @return whether to proxy classes
	 */
	boolean proxyTargetClass() default false;

	/**
	 * The order of the {@code @DistributedLock} advisor among the advisors of a method;
	 * by default just before {@code @Transactional}'s, so that the lock is taken before a
	 * transaction begins and released after it ends.
	 * @return the order
	 */
	int order() default Ordered.LOWEST_PRECEDENCE - 1;

}
