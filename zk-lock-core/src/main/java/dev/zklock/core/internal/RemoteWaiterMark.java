package dev.zklock.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * An entry's mark: whether a participant of another JVM may queue behind the node this
 * JVM holds, so that local hand-offs (or joins, for a read node) make way for it after a
 * bound, and how many were made since it was raised.
 *
 * <p>
 * The mark is set from each child list read for the held node (raised if it showed
 * another participant or armed no watch, cleared if not) and raised by each child event
 * after it; both arrive on the client's one event thread, in order, so a cleared mark
 * means that the child watch that list armed has not fired yet. {@link RemoteWaiters}
 * tells the entries of a path; the entry keeps its mark here.
 *
 * <p>
 * The flags are written on the event thread without the entry's state lock, so they are
 * volatile; the count, and every decision that reads several of them, is made under the
 * entry's state lock.
 */
public final class RemoteWaiterMark {

	/** Whether another participant may queue behind our node. */
	private volatile boolean raised;

	/**
	 * Whether the mark stands for want of a child watch on the held node (its list armed
	 * none, or the connection was lost), not for a participant seen: a list of the node
	 * read with the watch can clear it.
	 */
	private volatile boolean watchMissing;

	/**
	 * The held node a list with the watch is on its way for, if any: until its reply,
	 * hand-offs are not counted against the bound. Cleared when a participant is seen
	 * meanwhile.
	 */
	private volatile @Nullable HeldNode listing;

	/**
	 * Hand-offs (or joins) made since the mark was raised; guarded by the entry's state
	 * lock.
	 */
	private int passed;

	/** Whether another participant may queue behind our node. */
	public boolean isRaised() {
		return this.raised;
	}

	/** Whether the mark stands only for want of a child watch. */
	public boolean isWatchMissing() {
		return this.watchMissing;
	}

	/**
	 * A participant was seen behind our node (a child event, or a list showing one): no
	 * list can clear the mark now, and one on its way must not.
	 */
	public void seen() {
		this.watchMissing = false;
		this.listing = null;
		this.raised = true;
	}

	/**
	 * Raised for want of a child watch: a list of the held node read with the watch can
	 * clear it.
	 */
	public void unwatched() {
		this.watchMissing = true;
		this.raised = true;
	}

	/** Raised, without a word on why: for an entry that lists its node on its own. */
	public void raise() {
		this.raised = true;
	}

	/**
	 * The last child list showed no other participant, and armed the watch: it tells of
	 * the next. The count is left as it is.
	 */
	public void clear() {
		this.watchMissing = false;
		this.raised = false;
	}

	/** Lowered, the count left as it is: the node it stood for went. */
	public void lower() {
		this.raised = false;
	}

	/**
	 * Lowered, and the count started again: nobody else queues now. Guarded by the
	 * entry's state lock.
	 */
	public void clearAndReset() {
		this.raised = false;
		this.passed = 0;
	}

	/** Start the count again: a new node, or none. Guarded by the entry's state lock. */
	public void resetCount() {
		this.passed = 0;
	}

	/**
	 * Whether the mark lets one more local holder take the node, bound by {@code max}
	 * while it is raised. Guarded by the entry's state lock.
	 */
	public boolean allowsPass(int max) {
		return !this.raised || this.passed < max;
	}

	/**
	 * Count one hand-off (or join) made while raised. Guarded by the entry's state lock.
	 */
	public void countPass() {
		this.passed++;
	}

	/**
	 * Whether {@code current} may pass to the next local holder, given that everything
	 * but the mark allows it, and count the pass if the mark is raised. While a list of
	 * the node with the watch is on its way, passes are not bounded: its reply tells.
	 * Guarded by the entry's state lock.
	 * @param current the node held
	 * @param max the bound on passes while the mark is raised
	 * @param otherwiseAllowed whether everything but the mark allows the pass
	 * @return whether it passes
	 */
	public boolean tryPass(HeldNode current, int max, boolean otherwiseAllowed) {
		boolean remote = this.raised;
		// Read after the mark: a participant seen meanwhile clears it first
		boolean settling = remote && this.listing == current;
		boolean pass = otherwiseAllowed && (!remote || settling || this.passed < max);
		if (pass && remote) {
			this.passed++;
		}
		return pass;
	}

	/**
	 * Note that a list of {@code held} with the watch is to be sent, if the mark stands
	 * only for want of a watch and none is on its way for that node. Guarded by the
	 * entry's state lock.
	 * @return whether to send it
	 */
	public boolean startListing(HeldNode held) {
		if (!this.watchMissing || !this.raised || this.listing == held) {
			return false;
		}
		this.listing = held;
		return true;
	}

	/**
	 * The list started by {@link #startListing} came back: the mark is cleared if it
	 * showed nobody behind the node, still held, and nobody was seen since it was sent.
	 * Guarded by the entry's state lock.
	 * @param held the node listed
	 * @param stillHeld whether it is still the entry's node
	 * @param othersBehind whether the list showed a participant waiting behind it
	 */
	public void listed(HeldNode held, boolean stillHeld, boolean othersBehind) {
		if (this.listing != held) {
			return;
		}
		this.listing = null;
		if (!stillHeld) {
			return;
		}
		this.watchMissing = false;
		if (!othersBehind) {
			this.raised = false;
			this.passed = 0;
		}
	}

	/**
	 * The list for {@code held} failed, or would change nothing: the mark stays, and the
	 * bound applies from now on, without another list for this node. Guarded by the
	 * entry's state lock.
	 */
	public void listFailed(HeldNode held) {
		if (this.listing == held) {
			this.listing = null;
			this.watchMissing = false;
		}
	}

}
