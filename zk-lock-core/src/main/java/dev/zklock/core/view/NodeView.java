package dev.zklock.core.view;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalWaiter;

/**
 * One lock node as the view shows it: what ZooKeeper says of it, and what its instance
 * reports, if it reports.
 *
 * @param node the node's name
 * @param mode what it asks for: {@code EXCLUSIVE}, {@code READ}, {@code WRITE} or
 * {@code SEMAPHORE} (a lease, or a semaphore's waiter)
 * @param sessionId the session that owns it
 * @param owner its data: {@code pid@host} for zk-lock, the client's address for a plain
 * Curator recipe (shown as read, at most 256 characters)
 * @param host the host part of {@code pid@host}, or the whole owner
 * @param fencingToken its creation zxid
 * @param queuedAt when it was made, by ZooKeeper's clock
 * @param waited how long it has waited, for a waiter: from {@code queuedAt} to the read
 * @param thread the thread that holds through it, as its instance reports; {@code null}
 * for a lease, a waiter, or a node nobody reports
 * @param heldSince since when it is held, as its instance reports; {@code null} if not
 * reported
 * @param leaseState its lease state as its instance reports; {@code null} if not reported
 * @param lingering whether its instance keeps it after a release
 * ({@code zklock.lock.linger}): held to others, though nobody there holds it
 * @param localWaiters the calls of its instance that wait behind it for this key, the
 * longest waiting first, as reported
 * @param reportedBy the participant id of the instance that reports it, {@code null} if
 * none does (a plain Curator process, or an instance that does not publish reports)
 * @author zk-lock
 */
public record NodeView(String node, LocalWaiter.Mode mode, long sessionId, String owner, String host, long fencingToken,
		Instant queuedAt, Duration waited, @Nullable String thread, @Nullable Instant heldSince,
		@Nullable LeaseState leaseState, boolean lingering, List<LocalWaiter> localWaiters,
		@Nullable String reportedBy) {

	/**
	 * Create a new instance.
	 */
	public NodeView {
		localWaiters = List.copyOf(localWaiters);
	}

}
