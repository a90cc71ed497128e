package dev.zklock.core.internal.mutex;

import java.util.concurrent.locks.ReentrantLock;

import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.QueueBehind;
import dev.zklock.core.internal.RemoteWaiterMark;

/**
 * Settles an exclusive entry's mark when it stands only for want of a child watch: sends
 * a list of the held node's lock path with the watch, if threads of this JVM queue for
 * the node. Without it, they would make way, after {@code maxLocalHandoffs} hand-offs,
 * for a participant nobody has seen: the node would go, and the next thread take a new
 * one (two writes and a list) while the rest of the queue waits. The list costs one read,
 * and its reply either shows who queues (the bound then applies to the hand-offs made
 * meanwhile too) or clears the mark, its watch telling of the next.
 *
 * <p>
 * The decisions are made under the entry's state lock, which this is given; the list is
 * sent after it is released.
 */
final class MarkSettler {

	/** The entry's node, listed again. */
	private final EntryNode node;

	/** The entry's state lock: guards its queue, its node and the mark's count. */
	private final ReentrantLock stateLock;

	/** The entry's slot queue: a list is worth a read only while threads queue. */
	private final SlotQueue slots;

	private final RemoteWaiterMark mark;

	/** Sends the list. */
	private final Engine engine;

	MarkSettler(EntryNode node, ReentrantLock stateLock, SlotQueue slots, RemoteWaiterMark mark, Engine engine) {
		this.node = node;
		this.stateLock = stateLock;
		this.slots = slots;
		this.mark = mark;
		this.engine = engine;
	}

	/**
	 * Send a list of the held node's lock path with the child watch, if the mark stands
	 * only for want of a watch and threads of this JVM queue for the node. Called outside
	 * the state lock.
	 */
	void settle() {
		if (!this.mark.isWatchMissing()) {
			return;
		}
		HeldNode held;
		this.stateLock.lock();
		try {
			held = this.node.node();
			if (held == null || !this.slots.isHeld() || !this.slots.hasWaiters() || !this.mark.startListing(held)) {
				return;
			}
		}
		finally {
			this.stateLock.unlock();
		}
		list(held);
	}

	/**
	 * List {@code held}'s lock path with the watch, not waited for. With no local
	 * hand-off, what the list would tell changes nothing: it is not sent.
	 */
	private void list(HeldNode held) {
		if (this.engine.maxLocalHandoffs() <= 0) {
			listFailed(held);
			return;
		}
		QueueBehind.list(this.engine, this.node.path(), LockDriver.MUTEX, held, (behind) -> listed(held, behind))
			.whenComplete((children, ex) -> {
				if (ex != null) {
					listFailed(held);
				}
			});
	}

	/**
	 * Told, on the client's event thread, what the list sent for {@code held} shows: the
	 * mark is cleared if nobody queues behind the node and nobody was seen since the list
	 * was sent.
	 */
	private void listed(HeldNode held, QueueBehind behind) {
		// Our node missing from its own list: nothing can be ruled out
		boolean others = behind != QueueBehind.NOBODY;
		this.stateLock.lock();
		try {
			this.mark.listed(held, this.node.node() == held, others);
		}
		finally {
			this.stateLock.unlock();
		}
	}

	/**
	 * The list for {@code held} failed, or would change nothing (no local hand-off at
	 * all): the mark stays, and the bound applies from now on, without another list for
	 * this node.
	 */
	private void listFailed(HeldNode held) {
		this.stateLock.lock();
		try {
			this.mark.listFailed(held);
		}
		finally {
			this.stateLock.unlock();
		}
	}

}
