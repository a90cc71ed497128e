package dev.zklock.core.internal.readwrite;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.HeldNode;
import dev.zklock.core.internal.RemoteWaiterMark;

/**
 * A read/write entry's nodes, and which of them covers its read holds: the read node this
 * JVM's readers share, and the writer's node, kept after a downgrade until the last read
 * hold that followed it ends. Every read hold is covered by one of them while held, so a
 * downgrade never opens a moment in which this JVM reads with no node that excludes
 * writers. The last hold a node covers deletes it.
 *
 * <p>
 * Every change is made by the entry under its state lock, together with the signal to the
 * readers that wait on it; the nodes, the writer and the hold time are volatile, read
 * without the lock.
 */
final class EntryNodes {

	/**
	 * Whether another JVM may wait behind the read node, and the joins made since it was
	 * seen: bounds the joins, counted again for each read node.
	 */
	private final RemoteWaiterMark mark;

	/** Read holds of this JVM, each covered by a node. */
	private int readHolds;

	private volatile @Nullable HeldNode readNode;

	/**
	 * The writer's node, and after a downgrade the node that covers the remaining reads.
	 */
	private volatile @Nullable HeldNode writeNode;

	/** The thread holding the write side, if any. */
	private volatile @Nullable Thread writer;

	private volatile @Nullable Instant heldSince;

	EntryNodes(RemoteWaiterMark mark) {
		this.mark = mark;
	}

	/** Whether a node covers reads now: the read node, or the writer's. */
	boolean isCovered() {
		return this.readNode != null || this.writeNode != null;
	}

	/**
	 * Whether a new reader, not reentrant, may join the node that covers reads. As for a
	 * hand-off: only a node known held on the client's session is joined, and only a
	 * bounded number of times while the mark is raised.
	 * @param maxJoins how many readers may join while the mark is raised
	 * @param currentSession the client's session
	 */
	boolean isJoinable(int maxJoins, long currentSession) {
		return (isHeldOn(this.readNode, currentSession) || isHeldOn(this.writeNode, currentSession))
				&& this.mark.allowsPass(maxJoins);
	}

	private static boolean isHeldOn(@Nullable HeldNode node, long session) {
		return node != null && node.state() == LeaseState.HELD && node.sessionId() == session;
	}

	/**
	 * A reader joins the node that covers reads; a new reader's join counts against the
	 * bound while the mark is raised.
	 */
	void join(boolean reentrant) {
		if (this.mark.isRaised() && !reentrant) {
			this.mark.countPass();
		}
		countReadHold();
	}

	/** The read acquirer got the read node, and holds it. */
	void readAcquired(HeldNode node) {
		this.readNode = node;
		this.mark.resetCount();
		countReadHold();
	}

	private void countReadHold() {
		if (this.readHolds++ == 0 && this.writer == null) {
			this.heldSince = Instant.now();
		}
	}

	int readHolds() {
		return this.readHolds;
	}

	/**
	 * End a read hold; the last one deletes the node that covered the reads.
	 * @return the node that covered the hold, and the delete if one was sent
	 */
	Release leaveRead(Engine engine) {
		HeldNode covering = (this.readNode != null) ? this.readNode : this.writeNode;
		CompletableFuture<Void> delete = null;
		if (--this.readHolds == 0) {
			HeldNode read = this.readNode;
			if (read != null) {
				this.readNode = null;
				this.mark.lower();
				delete = engine.deleteNode(read.nodePath());
			}
			HeldNode write = this.writeNode;
			if (write != null && this.writer == null) {
				// Kept after a downgrade for the reads that followed it: they are done
				this.writeNode = null;
				delete = engine.deleteNode(write.nodePath());
			}
			if (this.writer == null) {
				this.heldSince = null;
			}
		}
		return new Release(covering, delete);
	}

	/** The writer got its node. */
	void writeAcquired(Thread thread, HeldNode node) {
		this.writeNode = node;
		this.writer = thread;
		this.heldSince = Instant.now();
	}

	/**
	 * End the outermost write hold. Reads the writer took meanwhile keep its node: it
	 * covers them until the last of them ends.
	 * @return the writer's node, and its delete if one was sent
	 */
	Release leaveWrite(Engine engine) {
		HeldNode node = this.writeNode;
		this.writer = null;
		CompletableFuture<Void> delete = null;
		if (this.readHolds == 0) {
			this.heldSince = null;
			if (node != null) {
				this.writeNode = null;
				delete = engine.deleteNode(node.nodePath());
			}
		}
		return new Release(node, delete);
	}

	/**
	 * The node behind a hold: the write node for the writer, else the node covering the
	 * reads.
	 */
	@Nullable HeldNode heldNodeOf(boolean write) {
		HeldNode write0 = this.writeNode;
		if (write) {
			return write0;
		}
		HeldNode read = this.readNode;
		return (read != null) ? read : write0;
	}

	/**
	 * The read node that this JVM's readers join, if it holds one without a write node:
	 * only behind a read node can another participant queue without waiting for it.
	 */
	@Nullable HeldNode soleReadNode() {
		return (this.writeNode == null) ? this.readNode : null;
	}

	/** Whether no node is held and no hold counted. */
	boolean isEmpty() {
		return this.readHolds == 0 && this.readNode == null && this.writeNode == null && this.writer == null;
	}

	@Nullable Thread writer() {
		return this.writer;
	}

	@Nullable Instant heldSince() {
		return this.heldSince;
	}

	void forEach(Consumer<HeldNode> action) {
		HeldNode read = this.readNode;
		if (read != null) {
			action.accept(read);
		}
		HeldNode write = this.writeNode;
		if (write != null) {
			action.accept(write);
		}
	}

	/**
	 * What ending a hold did.
	 *
	 * @param node the node that backed the hold, if any
	 * @param delete the first try to delete the node, if the hold was the last it covered
	 */
	record Release(@Nullable HeldNode node, @Nullable CompletableFuture<Void> delete) {
	}

}
