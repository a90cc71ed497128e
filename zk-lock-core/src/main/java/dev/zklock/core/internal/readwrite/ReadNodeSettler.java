package dev.zklock.core.internal.readwrite;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.QueueBehind;
import dev.zklock.core.internal.RemoteWaiterMark;

/**
 * Settles a read/write entry's mark: another JVM's reader, which holds alongside the read
 * node, fires the child watch as a writer, which waits behind it, does, and only a list
 * tells them apart. So while the mark is raised and the entry holds a read node that no
 * list has shown a writer behind, each child event lists the read node again with the
 * watch, not waited for: a list that shows nobody behind it clears the mark, and lets the
 * readers it held back join again; once a writer is seen, nothing can clear the mark
 * until the node goes, so no more lists.
 *
 * <p>
 * The mark is cleared under the entry's state lock, which this is given, with the signal
 * to the readers waiting on it.
 */
final class ReadNodeSettler {

	/** The entry's nodes: only a read node held without a write node is listed. */
	private final EntryNodes nodes;

	private final String path;

	/** The entry's state lock: guards the mark's count and the joins. */
	private final ReentrantLock state;

	/** Signalled when the mark clears: the readers it held back look again. */
	private final Condition changed;

	private final RemoteWaiterMark mark;

	/** Sends the list. */
	private final Engine engine;

	/** The read node a list has shown a write node behind, if any. */
	private volatile @Nullable HeldNode writerBehind;

	ReadNodeSettler(EntryNodes nodes, String path, ReentrantLock state, Condition changed, RemoteWaiterMark mark,
			Engine engine) {
		this.nodes = nodes;
		this.path = path;
		this.state = state;
		this.changed = changed;
		this.mark = mark;
		this.engine = engine;
	}

	/**
	 * List the read node again with the watch, not waited for, if the mark is raised
	 * while the entry holds one that no list has shown a write node behind.
	 */
	void settle() {
		HeldNode read = this.nodes.soleReadNode();
		if (this.mark.isRaised() && read != null && read != this.writerBehind) {
			QueueBehind.list(this.engine, this.path, LockDriver.READ, read, (behind) -> listed(read, behind));
		}
	}

	/**
	 * Told, on the client's event thread, what a list read while {@code read} was the
	 * read node and the mark raised shows: if no write node waits behind it, the mark was
	 * raised by another JVM's reader, and is cleared.
	 */
	private void listed(HeldNode read, QueueBehind behind) {
		if (behind == QueueBehind.OTHERS) {
			// It waits until the node goes: no later list could clear the mark
			this.writerBehind = read;
		}
		else if (behind == QueueBehind.NOBODY) {
			clear(read);
		}
	}

	/**
	 * Clear the mark, if {@code read} is still the read node (any node, if null), and let
	 * the readers it held back join again: nobody else queues now.
	 */
	void clear(@Nullable HeldNode read) {
		if (!this.mark.isRaised()) {
			return;
		}
		this.state.lock();
		try {
			if (read != null && this.nodes.soleReadNode() != read) {
				// Listed for a node that went: the next node's own list tells
				return;
			}
			this.mark.clearAndReset();
			this.changed.signalAll();
		}
		finally {
			this.state.unlock();
		}
	}

}
