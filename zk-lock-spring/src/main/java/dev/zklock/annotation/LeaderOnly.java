package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only on the instance that leads a group; on every other
 * instance the call is skipped quietly. A scheduled job that runs on every instance thus
 * does its work on one of them, the leader, and moves to another when the leader stops or
 * loses its session:
 *
 * <pre class="code">
 * &#064;Scheduled(fixedDelay = 10_000)
 * &#064;LeaderOnly(group = "billing")
 * &#064;Transactional
 * public void invoiceDueOrders() {
 *     this.fencing.fenceTransaction(); // the group's name, fenced with the term's epoch
 *     ...
 * }
 * </pre>
 *
 * <p>
 * The leadership of the group is the application's
 * {@code dev.zklock.leadership.ZkLeadership} bean's: every group named by
 * {@code @LeaderOnly} is joined when the application starts, so an instance leads before
 * the first call, and the application fails to start without such a bean. A call on the
 * leader runs as leader work: {@code LeaderContext.current()} gives the group and the
 * term's epoch (the fencing token of its writes); the thread is interrupted at once if
 * the term's node is lost or in doubt, and the call then ends with a
 * {@link dev.zklock.core.leader.LeadershipLostException} (the method's own exception, if
 * any, suppressed in it); when the leader hands over (the application stops, the
 * leadership is yielded or revoked), the call is waited for, up to the hand-off timeout,
 * before the next instance leads. A skipped call returns what a call skipped by
 * {@code @DistributedLock(onLocked = SKIP)} returns: nothing for {@code void},
 * {@code null} for an object, an empty {@code Optional}, collection, map or array.
 *
 * <p>
 * Ordered before {@code @DistributedLock} and {@code @Transactional} on the same method:
 * an instance that does not lead neither locks nor begins a transaction.
 *
 * <p>
 * On a type, it makes the bean leader-only:
 * <ul>
 * <li>a bean that is a {@link org.springframework.context.Lifecycle Lifecycle} (a
 * {@link org.springframework.context.SmartLifecycle SmartLifecycle}, a message listener
 * container, a consumer) is a <em>leader-only component</em>: it is started when this
 * instance begins to lead the group and stopped when the term ends, and never by the
 * application context, whatever its {@code isAutoStartup()} says: the context's calls of
 * {@code start()} and {@code stop()} on it do nothing, and {@code isAutoStartup()}
 * answers {@code false} to it, so its own shutdown never races the hand-off's;</li>
 * <li>on any other bean, every public method declared in the type (or a subtype) is
 * leader-only, as if annotated, as {@code @Transactional} does on a type; a method's own
 * {@code @LeaderOnly} wins.</li>
 * </ul>
 *
 * <p>
 * Only for methods whose work ends when they return: leader work belongs to the thread
 * that runs it (it is interrupted on that thread, and drained until it returns), so a
 * method returning a {@code CompletionStage}, a {@code Future}, a stream, a reactive type
 * or a Kotlin {@code suspend} function fails startup, as its work would go on after the
 * call, unwatched, maybe while another instance leads. Whatever cannot work fails the
 * application's startup with a message naming the method: a private, static or final
 * method, a self-call through {@code this} (which bypasses the proxy, as with
 * {@code @Transactional}; see {@link UnlockedSelfCall}) unless the caller is itself
 * leader work of the same group, an empty or invalid group name, a placeholder that
 * cannot be resolved, and a return type that has nothing to return when the call is
 * skipped (a primitive other than {@code void}, a concrete collection type that cannot be
 * made empty).
 *
 * @author zk-lock
 * @see DistributedLock
 * @see EnableDistributedLocks
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

	/**
	 * The group whose leader runs the method: a name that can be one ZooKeeper path
	 * segment, as a lock key, or a placeholder such as {@code "${app.billing-group}"},
	 * resolved once at startup. Instances that name the same group (under the same
	 * leadership root path) compete for it.
	 * @return the group's name
	 */
	String group();

}
