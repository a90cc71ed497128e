package dev.zklock.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * How one {@link Acquisition} waits: for ZooKeeper's replies, for the connection, and
 * between attempts that keep losing it, every wait held to the caller's {@link Deadline},
 * given up at once if the registry closes, and interrupted as the caller asked. It also
 * keeps what the attempt waits for on ZooKeeper alone, to say why when the deadline
 * passes there.
 */
final class AttemptWaits {

	/** The longest pause between attempts that keep losing the connection at once. */
	private static final long MAX_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	/** How often a wait for the connection looks again. */
	private static final long CONNECTION_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final ZkOps ops;

	/** Names the connection state when the wait fails for want of a connection. */
	private final SessionTracker sessions;

	/** Whose close ends every wait. */
	private final TableEntry entry;

	private final Deadline deadline;

	private final Interrupts interrupts;

	/** What the attempt waits for now: the reason given if the deadline passes. */
	private String awaiting = "";

	/**
	 * Since when, in {@link System#nanoTime()}, the attempt has waited on ZooKeeper alone
	 * (replies, the connection) rather than behind another holder: since it began, which
	 * is when the local queue let it go, or since it last learned it is queued behind
	 * another participant. What the deadline weighs when it passes here
	 * ({@link Deadline#ranOut}).
	 */
	private long zooKeeperSince = System.nanoTime();

	/** Connections lost in a row, at once: each one more backs off longer. */
	private int connectionLosses;

	AttemptWaits(ZkOps ops, SessionTracker sessions, TableEntry entry, Deadline deadline, Interrupts interrupts) {
		this.ops = ops;
		this.sessions = sessions;
		this.entry = entry;
		this.deadline = deadline;
		this.interrupts = interrupts;
	}

	/**
	 * Note that our node is queued behind another participant's as of now: the stretch on
	 * ZooKeeper alone starts again.
	 */
	void queuedBehind(String detail) {
		this.deadline.queuedBehind(Reason.HELD_REMOTELY, detail);
		this.zooKeeperSince = System.nanoTime();
	}

	/** A request failed with the connection, or was shed by the server. */
	void connectionLost() {
		this.connectionLosses++;
	}

	/** A request came back: losses are no longer in a row. */
	void replied() {
		this.connectionLosses = 0;
	}

	/**
	 * Pause a little before trying again when the connection keeps failing at once, so
	 * that a client that reports itself connected while every request fails cannot make
	 * us spin.
	 */
	void backOff() throws AcquireFailure, InterruptedException {
		if (this.connectionLosses < 2) {
			return;
		}
		long pause = Math.min(MAX_BACK_OFF_NANOS,
				TimeUnit.MILLISECONDS.toNanos(5L << Math.min(this.connectionLosses, 8)));
		long until = System.nanoTime() + Math.min(pause, Math.max(0, this.deadline.remainingNanos()));
		long remaining;
		while ((remaining = until - System.nanoTime()) > 0) {
			checkOpen();
			LockSupport.parkNanos(this, remaining);
			checkInterrupt();
		}
	}

	void awaitConnected(Exception cause) throws AcquireFailure, InterruptedException {
		while (!this.ops.isConnected()) {
			checkOpen();
			if (this.ops.isClientClosed()) {
				throw new AcquireFailure(Reason.ERROR, "the Curator client was closed", cause);
			}
			long remaining = this.deadline.remainingNanos();
			if (remaining <= 0) {
				throw ranOut(cause);
			}
			LockSupport.parkNanos(this, Math.min(remaining, CONNECTION_POLL_NANOS));
			checkInterrupt();
		}
	}

	/**
	 * Why the attempt failed when its deadline passed while it waited on ZooKeeper alone:
	 * for a reply, or for the connection. {@code NO_REPLY} only on a connected client
	 * (Curator's view and the handle's agree), {@code NOT_CONNECTED}, naming the
	 * connection's state, only on one that is not; and either only if the wait was not
	 * used mostly by the holders it was queued behind ({@link Deadline#ranOut}).
	 */
	AcquireFailure ranOut(@Nullable Exception cause) {
		boolean connected = this.ops.isConnected() && this.ops.isHandleConnected();
		AcquireFailure zooKeeper = connected
				? new AcquireFailure(Reason.NO_REPLY, "no reply to " + this.awaiting, cause)
				: new AcquireFailure(Reason.NOT_CONNECTED, this.sessions.notConnected(), cause);
		return this.deadline.ranOut(zooKeeper, this.zooKeeperSince, connected ? this.awaiting : "a reconnect");
	}

	/**
	 * Wait for ZooKeeper's reply to a request, named for the failure if the deadline
	 * passes meanwhile.
	 */
	<T extends @Nullable Object> T awaitReply(CompletableFuture<T> reply, String what) throws Exception {
		this.awaiting = what;
		return await(reply);
	}

	/**
	 * Wait for a future until the deadline, giving up at once if the registry closes, and
	 * treating interrupts as the caller asked.
	 * @throws TimeoutException if the deadline passed
	 */
	<T extends @Nullable Object> T await(CompletableFuture<T> future) throws Exception {
		if (!future.isDone()) {
			Thread waiter = Thread.currentThread();
			future.whenComplete((result, ex) -> LockSupport.unpark(waiter));
			while (!future.isDone()) {
				checkOpen();
				long remaining = this.deadline.remainingNanos();
				if (remaining <= 0) {
					throw new TimeoutException();
				}
				if (this.deadline.isInfinite()) {
					LockSupport.park(this);
				}
				else {
					LockSupport.parkNanos(this, remaining);
				}
				checkInterrupt();
			}
		}
		// Done by now: no wait
		return Futures.await(future, 0);
	}

	void checkOpen() throws AcquireFailure {
		if (this.entry.isClosed()) {
			throw new AcquireFailure(Reason.CLOSED, "", null);
		}
	}

	void checkInterrupt() throws InterruptedException {
		if (Thread.interrupted()) {
			this.interrupts.interrupted(new InterruptedException());
		}
	}

}
