package dev.zklock.core.leader;

import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;

/**
 * One uninterrupted leadership of a group by a {@link LeaderCandidate}: from its grant to
 * its {@link TermEnd end}.
 *
 * @author zk-lock
 */
public interface LeaderTerm {

	/**
	 * Return the group.
	 * @return the group
	 */
	LeaderGroup group();

	/**
	 * Return the term's epoch: the creation zxid of the node it holds, strictly greater
	 * than every earlier term's of the group, and the fencing token of writes made in it.
	 * @return the epoch
	 */
	long epoch();

	/**
	 * Return this participant's id: the data of its node ({@code pid@host}).
	 * @return the participant id
	 */
	String participantId();

	/**
	 * Return when the term began, by this JVM's clock.
	 * @return when it began
	 */
	Instant since();

	/**
	 * Return what this JVM knows about the node behind the term: {@code UNCERTAIN} while
	 * the connection is suspended, {@code LOST} once it is gone.
	 * @return the lease state
	 */
	LeaseState state();

	/**
	 * Return whether the term goes on: it has not ended and its node is not lost.
	 * @return whether this candidate still leads in this term
	 */
	boolean isActive();

	/**
	 * Return why the term ended.
	 * @return why, or empty while it goes on
	 */
	Optional<TermEnd> end();

	/**
	 * Throw unless the term {@linkplain #isActive() goes on}: for leader work to check
	 * between steps.
	 * @throws LeadershipLostException if the term ended or its node is lost
	 */
	void checkLeading();

	/**
	 * Return a Curator transaction that applies only while the term's node stands (see
	 * {@link GuardedTransaction}).
	 * @return the guarded transaction
	 */
	GuardedTransaction guardedTransaction();

	/**
	 * Run {@code callback} when the term ends, at once if it has: on the thread that ends
	 * it (ZooKeeper's event thread when the node is lost), so it must not block. For work
	 * that must stop with the term, such as a thread to interrupt.
	 * @param callback what to run, given why the term ended
	 * @return a handle that forgets the callback when closed
	 */
	AutoCloseable onEnd(Consumer<TermEnd> callback);

}
