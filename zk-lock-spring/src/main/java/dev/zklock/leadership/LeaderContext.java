package dev.zklock.leadership;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.leader.LeaderTerm;

/**
 * The leader work that runs on the current thread, seen from inside it: a
 * {@code @LeaderOnly} method, or work started through {@link ZkLeadership#startWork}.
 *
 * <pre class="code">
 * &#064;LeaderOnly(group = "billing")
 * &#064;Scheduled(fixedDelay = 10_000)
 * &#064;Transactional
 * public void invoiceDueOrders() {
 *     this.fencing.fenceTransaction("billing", LeaderContext.current().epoch());
 *     // every write of this transaction is refused once a newer leader has fenced
 * }
 * </pre>
 *
 * @author zk-lock
 */
public interface LeaderContext {

	/**
	 * Return the leader work that runs on this thread, the innermost if nested.
	 * @return the context
	 * @throws IllegalStateException if this thread runs no leader work
	 */
	static LeaderContext current() {
		LeaderContext context = LeaderContextHolder.get();
		if (context == null) {
			throw new IllegalStateException(
					"No leader context: LeaderContext.current() works on the thread that runs a "
							+ "@LeaderOnly method or leader work, while it runs");
		}
		return context;
	}

	/**
	 * Return the leader work that runs on this thread, if any.
	 * @return the context, or {@code null}
	 */
	static @Nullable LeaderContext find() {
		return LeaderContextHolder.get();
	}

	/**
	 * Return the group's name.
	 * @return the group
	 */
	String group();

	/**
	 * Return the epoch of the term the work runs in: the fencing token of its writes, as
	 * {@link dev.zklock.jdbc.JdbcFencing#fenceTransaction(String, long)} takes it.
	 * @return the epoch
	 */
	long epoch();

	/**
	 * Return the term the work runs in.
	 * @return the term
	 */
	LeaderTerm term();

	/**
	 * Return whether the term goes on.
	 * @return whether this instance still leads in the work's term
	 */
	boolean isLeading();

	/**
	 * Throw unless the term goes on: for long work to check between steps.
	 * @throws dev.zklock.core.leader.LeadershipLostException if the term ended or its
	 * node is lost
	 */
	void checkLeading();

}
