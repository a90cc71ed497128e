package dev.zklock.core.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * How one {@link Acquisition} whose node does not hold waits for its predecessor: the one
 * node the {@link LockDriver} names is watched, through the registry's one watcher, and
 * read to arm the watch; a semaphore's lease, which no single node blocks, watches the
 * child list instead. It also names whom the attempt waits behind, for its failure.
 */
final class PredecessorWait {

	private final ZkOps ops;

	private final LockWatches watches;

	/** The attempt's waits, to its deadline. */
	private final AttemptWaits waits;

	/** Whom the attempt waits behind, for its failure. */
	private final HolderDetail holder = new HolderDetail();

	PredecessorWait(ZkOps ops, LockWatches watches, AttemptWaits waits) {
		this.ops = ops;
		this.watches = watches;
		this.waits = waits;
	}

	/**
	 * Note that our node waits in {@code queue} behind the node at {@code blocker}.
	 * @return whom it waits behind, in words for its failure
	 */
	String behind(List<String> queue, int blocker) {
		this.holder.holder(queue.get(0));
		return (blocker == LockDriver.WATCH_CHILDREN) ? HolderDetail.ALL_TAKEN : this.holder.toString();
	}

	/**
	 * Wait until our predecessor changes (usually: is deleted), through the registry's
	 * one watcher. Given our node, it is watched too, so that its delete (by hand, say)
	 * is known before the predecessor's: ZooKeeper sends one session its events in the
	 * order of the changes.
	 * @param ours our node, if the predecessor's delete makes it hold, else {@code null}
	 * @return whether our node holds now: the predecessor is gone (deleted, or not found
	 * by the read that sets the watch) and our node, given, is untouched (any event on
	 * it, a revocation request say, consumes the watch that would tell its delete);
	 * {@code false} means look again
	 */
	boolean awaitPredecessor(String predecessor, boolean predecessorHolds, @Nullable String ours) throws Exception {
		String serverPath = this.ops.serverPath(predecessor);
		String ourServerPath = (ours != null) ? this.ops.serverPath(ours) : null;
		CompletableFuture<Boolean> changed = this.watches.expect(serverPath);
		CompletableFuture<Boolean> oursChanged = null;
		try {
			if (ourServerPath != null) {
				oursChanged = this.watches.expect(ourServerPath);
			}
			long ourReadSent = System.nanoTime();
			// Sent first: its reply comes before the predecessor's
			CompletableFuture<ZkOps.@Nullable NodeData> ourRead = (ours != null) ? this.ops.getData(ours, this.watches)
					: null;
			ZkOps.NodeData read = this.waits.awaitReply(this.ops.getData(predecessor, this.watches),
					"the read of our predecessor");
			boolean gone = true;
			if (read != null) {
				if (predecessorHolds) {
					// The read that sets the watch tells who holds: naming them costs no
					// round trip
					this.holder.holderRead(read.data());
				}
				try {
					gone = this.waits.await(changed);
				}
				catch (TimeoutException ex) {
					throw new AcquireFailure(Reason.HELD_REMOTELY, this.holder.toString(), null);
				}
				// Queued until now; the holder's owner, if read, is named from now on
				this.waits.queuedBehind(this.holder.toString());
			}
			return gone && ourRead != null && oursChanged != null
					&& this.waits.awaitReply(ourRead, "the read of our node") != null && !oursChanged.isDone()
					&& isRecent(ourReadSent);
		}
		finally {
			this.watches.forget(serverPath, changed);
			if (ourServerPath != null && oursChanged != null) {
				this.watches.forget(ourServerPath, oursChanged);
			}
		}
	}

	/**
	 * Whether a delete event that arrived now is proof that our node is still there. The
	 * server read our node after {@code sent}, so it cannot expire our session, delete
	 * our node with it and let the participant behind us in, sooner than a session
	 * timeout after that. An event handled much later (the client's event thread kept
	 * busy, the process stalled) may be older than our session; then the list is read, as
	 * after any other event. Half the timeout leaves room for the server's and our
	 * clocks' rates.
	 */
	private boolean isRecent(long sent) {
		long sessionTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(this.ops.negotiatedSessionTimeoutMs());
		return System.nanoTime() - sent < sessionTimeoutNanos / 2 && this.ops.isHandleConnected();
	}

	/**
	 * Wait until the child list differs from {@code seen}: registered first, then read
	 * again with the watch, so that no change between the two reads goes unseen.
	 */
	void awaitChildren(String lockPath, List<String> seen) throws Exception {
		CompletableFuture<Void> changed = this.watches.expectChildren(this.ops.serverPath(lockPath));
		List<String> now = this.waits.awaitReply(this.ops.getChildren(lockPath, this.watches), "the child list");
		if (now.size() != seen.size() || !now.containsAll(seen)) {
			return;
		}
		try {
			this.waits.await(changed);
		}
		catch (TimeoutException ex) {
			throw new AcquireFailure(Reason.HELD_REMOTELY, HolderDetail.ALL_TAKEN, null);
		}
		this.waits.queuedBehind(HolderDetail.ALL_TAKEN);
	}

}
