package dev.zklock.core.internal;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.ZkLease;

/**
 * Who holds an entry locally, or waits for it: a thread (a lock held by the thread that
 * took it), a handle that no thread owns (a {@link ZkLease} of an exclusive lock), or a
 * semaphore caller holding the semaphore's guard mutex while it adds its permit node. Two
 * holders are the same holder when they are of the same kind and stand for the same
 * thread or handle; each permit guard is a holder of its own.
 */
public final class Holder {

	/** What kind of holder it is. */
	public enum Kind {

		/** A thread: the lock is its own, reentrant, and released by it. */
		THREAD,

		/** A {@link ZkLease}: a hold that no thread owns. */
		HANDLE,

		/** A semaphore caller's hold of the guard while it adds its permit node. */
		PERMIT

	}

	private final Kind kind;

	/** The thread, the handle, or, for a permit guard, nothing but identity. */
	private final Object owner;

	private Holder(Kind kind, Object owner) {
		this.kind = kind;
		this.owner = owner;
	}

	/** The holder that is {@code thread}. */
	public static Holder thread(Thread thread) {
		return new Holder(Kind.THREAD, thread);
	}

	/** The holder that is the calling thread. */
	public static Holder currentThread() {
		return thread(Thread.currentThread());
	}

	/** The holder that is {@code handle}. */
	public static Holder handle(ZkLease handle) {
		return new Holder(Kind.HANDLE, handle);
	}

	/** A new holder of a semaphore's guard, for one caller's acquisition of a permit. */
	public static Holder permitGuard() {
		return new Holder(Kind.PERMIT, new Object());
	}

	public Kind kind() {
		return this.kind;
	}

	/** The thread, if this holder is one. */
	public @Nullable Thread thread() {
		return (this.owner instanceof Thread thread) ? thread : null;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof Holder holder) && holder.kind == this.kind && holder.owner == this.owner;
	}

	@Override
	public int hashCode() {
		return System.identityHashCode(this.owner);
	}

	/** As the thread or the handle says, for messages. */
	@Override
	public String toString() {
		return (this.kind == Kind.PERMIT) ? "a semaphore's permit acquisition" : this.owner.toString();
	}

}
