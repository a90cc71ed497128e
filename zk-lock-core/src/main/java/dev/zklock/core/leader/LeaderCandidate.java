package dev.zklock.core.leader;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * This JVM's participant in a leadership group, from
 * {@link dev.zklock.core.registry.ZkLockRegistry#joinLeadership}: it queues at once on
 * its own thread, leads when its node comes first, queues again after every term that it
 * did not end by closing, and leaves when closed. Thread safe.
 *
 * @author zk-lock
 */
public interface LeaderCandidate extends AutoCloseable {

	/**
	 * Return the group.
	 * @return the group
	 */
	LeaderGroup group();

	/**
	 * Return this participant's id: the data of its node, {@code pid@host}, as a Curator
	 * {@code LeaderSelector} reads it.
	 * @return the participant id
	 */
	String participantId();

	/**
	 * Return whether this candidate leads now: it has a term that
	 * {@linkplain LeaderTerm#isActive() goes on}.
	 * @return whether it leads
	 */
	boolean isLeader();

	/**
	 * Return the current term.
	 * @return the term that goes on, or {@code null} while this candidate does not lead
	 */
	@Nullable LeaderTerm currentTerm();

	/**
	 * Wait until this candidate leads.
	 * @param timeout the longest time to wait
	 * @return the term, or {@code null} if it did not lead within the timeout
	 * @throws InterruptedException if interrupted while waiting
	 */
	@Nullable LeaderTerm awaitLeadership(Duration timeout) throws InterruptedException;

	/**
	 * Step down if leading ({@link TermEnd#YIELDED}), and queue again, behind the
	 * candidates already waiting; a no-op otherwise. Returns at once: the listener is
	 * told and the node given up on the candidate's thread.
	 */
	void yieldLeadership();

	/**
	 * Leave the group: end the term if leading ({@link TermEnd#CLOSED}: the listener is
	 * told, then the node deleted), or stop waiting. Returns when the candidate's node is
	 * given up, or after {@code timeout}. Closing twice is a no-op.
	 * @param timeout the longest time to wait for the candidate's thread
	 * @return whether the candidate left within the timeout
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean close(Duration timeout) throws InterruptedException;

	/**
	 * Leave the group, waiting for as long as the listener takes to return (see
	 * {@link #close(Duration)}).
	 */
	@Override
	void close();

}
