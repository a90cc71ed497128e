package dev.zklock.core.internal;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;

/**
 * This JVM's state for one lock path, kept in a {@link LockTable} only while a thread or
 * node holds or waits: counted in by each of them, retired by the last one out. It is
 * also what a {@link Acquisition} acquires a node for.
 */
public abstract class TableEntry {

	private final String key;

	private final String path;

	/**
	 * Threads and leases inside acquire or holding; -1 once the entry has left the table,
	 * after which it is never used again.
	 */
	private final AtomicInteger refs = new AtomicInteger(1);

	/**
	 * The calls of this JVM waiting for the key, each under a token of its own. One
	 * record for both {@link #waitingCount()} (the {@code zklock.waiting} meter) and
	 * {@link #info()} (the {@code zklocks} endpoint), so the two agree.
	 */
	private final Map<Object, LocalWaiter> waitingCalls = new ConcurrentHashMap<>();

	public TableEntry(String key, String path) {
		this.key = key;
		this.path = path;
	}

	public final String key() {
		return this.key;
	}

	public final String path() {
		return this.path;
	}

	/**
	 * Count one more user, unless the entry has already left the table.
	 */
	public final boolean tryRetain() {
		int current;
		do {
			current = this.refs.get();
			if (current < 0) {
				return false;
			}
		}
		while (!this.refs.compareAndSet(current, current + 1));
		return true;
	}

	/**
	 * Count one user less; returns whether that was the last one and the entry is now
	 * retired, so the caller must remove it from the table.
	 */
	public final boolean releaseAndRetire() {
		return this.refs.decrementAndGet() == 0 && tryRetire();
	}

	/**
	 * Leave the table if nobody is counted in and the entry is idle; returns whether it
	 * left, so the caller must remove it from the table.
	 */
	public boolean tryRetire() {
		return isIdle() && this.refs.compareAndSet(0, -1);
	}

	/**
	 * Whether nothing is held, waited for or owned in ZooKeeper.
	 */
	public abstract boolean isIdle();

	/**
	 * Grant nothing any more: the registry closed. Holders keep their holds.
	 */
	public abstract void close();

	/**
	 * Whether a thread or lease of this JVM holds the key.
	 */
	public abstract boolean isHeld();

	/**
	 * Whether the entry keeps a node that nobody of this JVM holds (see the mutex
	 * recipe's {@code Linger}).
	 */
	public boolean isLingering() {
		return false;
	}

	/**
	 * Count a call of the current thread as waiting for the key, locally or in ZooKeeper,
	 * until {@link #stopWaiting} is given the token returned.
	 * @param mode what the call asks for
	 * @return the token of this wait
	 */
	public final Object startWaiting(LocalWaiter.Mode mode) {
		Object token = new Object();
		this.waitingCalls.put(token, new LocalWaiter(Thread.currentThread().getName(), mode, Instant.now()));
		return token;
	}

	/**
	 * End a wait counted by {@link #startWaiting}, whether it was granted or not.
	 * @param token the token of the wait
	 */
	public final void stopWaiting(Object token) {
		this.waitingCalls.remove(token);
	}

	/**
	 * How many calls of this JVM wait for the key, locally or in ZooKeeper.
	 */
	public final int waitingCount() {
		return this.waitingCalls.size();
	}

	/**
	 * Apply an action to each ZooKeeper node this entry holds, for the session tracker.
	 */
	public abstract void forEachHeldNode(Consumer<HeldNode> action);

	/**
	 * Make {@code node} {@link LeaseState#LOST} if it is one of this entry's nodes now:
	 * its node was deleted, not by its release, which takes a node out of its entry
	 * before it sends the delete.
	 * @return whether a hold was lost: {@code false} if the node is not this entry's, was
	 * lost already, or was kept by a linger, which ends
	 */
	public boolean loseDeletedNode(HeldNode node) {
		boolean[] found = { false };
		forEachHeldNode((each) -> found[0] |= (each == node));
		return found[0] && node.loseDeleted();
	}

	/**
	 * Told when a node of this entry, holding, is seen to have a participant of another
	 * JVM waiting behind it (by the child list read when it was granted, or by the child
	 * watch on the lock path), so that local hand-offs and joins make way for it. See
	 * {@link #noteUnwatched} for when one can no longer be ruled out.
	 */
	public abstract void noteRemoteWaiter();

	/**
	 * Told, on the client's event thread, that the child watch on the lock path fired:
	 * another participant may have joined the queue behind a node this entry holds. A
	 * recipe whose local holders make way for remote waiters raises its mark.
	 */
	public void childrenChanged() {
	}

	/**
	 * Told, on the client's event thread, that other code on the client removed the child
	 * watch on the lock path: a participant that queues behind a node this entry holds
	 * fires nothing now.
	 */
	public void childWatchRemoved() {
	}

	/**
	 * Told when the client lost its connection (or its session): no child watch of this
	 * entry can be trusted until a list arms one again.
	 */
	public void connectionDown() {
	}

	/**
	 * Told that someone wrote a revocation request into {@code node}'s node, after its
	 * holders' listeners: a node nobody holds (a linger) goes.
	 */
	public void revocationRequested(HeldNode node) {
	}

	/**
	 * Told when a node of this entry, holding, has no child watch armed for it (its list
	 * armed none, or the connection was lost): a participant of another JVM may queue
	 * behind it unheard. Unless an entry can settle that, it counts one as queued.
	 */
	public void noteUnwatched() {
		noteRemoteWaiter();
	}

	/**
	 * Whether a child list read for a node of this entry must arm the child watch on the
	 * lock path, so that the entry hears of each participant that queues behind the node.
	 * A list read without it makes the entry count one as queued.
	 */
	public boolean needsChildWatch() {
		return true;
	}

	/**
	 * Told, on the client's event thread, the outcome of each child list a participant of
	 * this entry reads: whether it shows a participant waiting behind the participant's
	 * node, and whether it armed the child watch. Child events after it come after it on
	 * the same thread.
	 */
	public final void childListRead(boolean othersWaitBehind, boolean watched) {
		if (othersWaitBehind) {
			// After a hold granted on the predecessor's delete, this list (not awaited,
			// so its reply can come while a mutex lingers) is the only word of a
			// participant that queued once the child watch had fired
			noteRemoteWaiter();
		}
		else if (!watched) {
			// A list that armed no watch says nothing of who queues after it
			noteUnwatched();
		}
		else {
			// Clears what this JVM's own delete of its node before raised: that delete
			// fired the watch the earlier list had set
			noRemoteWaiter();
		}
	}

	/**
	 * Told, through {@link #childListRead}, that the last child list showed no other
	 * participant: the watch it set tells of the next.
	 */
	public void noRemoteWaiter() {
	}

	/**
	 * Told, outside the session tracker's lock, that the state of a node of this entry
	 * changed with the connection: local threads that wait for a node to be
	 * {@link LeaseState#HELD} again, to join it, look again.
	 */
	public void heldNodesChanged() {
	}

	/**
	 * Refuse a node of this entry on {@code session}: called by a participant before it
	 * creates a node on the client's session, and once it owns one, before it holds it.
	 * Every recipe's node may be on any session, save a semaphore's node (see
	 * {@code SemaphoreEntry}).
	 * @param session the session the node is, or is about to be, created on
	 * @throws AcquireFailure if the entry may not have a node on it
	 */
	public void checkSession(long session) throws AcquireFailure {
	}

	/**
	 * Whether the registry was closed: an attempt in ZooKeeper gives up at once.
	 */
	public abstract boolean isClosed();

	/**
	 * A snapshot for {@link dev.zklock.core.registry.ZkLockRegistry#localLocks()}.
	 */
	public abstract LocalLockInfo info();

	/**
	 * A snapshot of this entry, with what its node, if any, says.
	 */
	public final LocalLockInfo snapshot(boolean held, @Nullable String holderThread, @Nullable Instant heldSince,
			@Nullable HeldNode node, LockKind kind, int holds, int permits, boolean lingering) {
		List<LocalWaiter> waiting = this.waitingCalls.values()
			.stream()
			.sorted(Comparator.comparing(LocalWaiter::since))
			.toList();
		return new LocalLockInfo(this.key, this.path, held, holderThread, heldSince, waiting.size(),
				(node != null) ? node.nodePath() : null, (node != null) ? node.fencingToken() : null,
				(node != null) ? node.state() : null, kind, holds, permits, lingering, waiting);
	}

}
