package dev.zklock.core.internal.mutex;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.LockDriver;
import dev.zklock.core.internal.LockTable;
import dev.zklock.core.internal.Publication;

/**
 * Acquire, release and hand-off for the exclusive lock: a key's local FIFO queue, whose
 * head alone takes a node in ZooKeeper and passes it on to the next local thread, a
 * bounded number of times while another JVM waits.
 */
public final class MutexEngine {

	private final Engine engine;

	private final LockTable<MutexEntry> entries;

	/** Keeps released nodes for a while; null when off. */
	private final @Nullable Linger linger;

	public MutexEngine(Engine engine) {
		this(engine, true);
	}

	/**
	 * An engine whose nodes may linger as the registry's options say, or never: a leader
	 * group's node must go when its term ends, for the next term to have a new epoch.
	 */
	public MutexEngine(Engine engine, boolean mayLinger) {
		this.engine = engine;
		this.linger = (!mayLinger || engine.linger().isZero()) ? null : new Linger(engine, this);
		this.entries = engine.newTable(this::newEntry);
		if (this.linger != null) {
			engine.whenDetached(this.linger::close);
		}
	}

	private MutexEntry newEntry(String key, String path) {
		return new MutexEntry(key, path, this.linger, this.engine);
	}

	/**
	 * The engine its locks' guarded transactions and revocation listeners go to.
	 */
	Engine engine() {
		return this.engine;
	}

	/**
	 * The entry of a lock path, if anyone of this JVM holds or waits for it.
	 */
	public @Nullable MutexEntry entry(String path) {
		return this.entries.get(path);
	}

	/**
	 * Acquire the key for {@code who} within {@code waitAtMost}, interruptibly, turning
	 * every failure into a {@link LockAcquisitionException} that names the key.
	 */
	public void acquireOrThrow(String key, String path, Holder who, Duration waitAtMost) {
		Deadline deadline = Deadline.after(waitAtMost);
		try {
			acquire(key, path, who, deadline, !waitAtMost.isZero(), Interrupts.interruptible());
		}
		catch (AcquireFailure | InterruptedException ex) {
			throw AcquireFailure.toException(ex, key, path, deadline.elapsed());
		}
	}

	/**
	 * Acquire the key for {@code who}: the local slot first, then, unless a node came
	 * with it, a node in ZooKeeper. With {@code waitForOthers} false, one attempt is
	 * made: no wait for another holder, but ZooKeeper round trips get up to the
	 * connection timeout.
	 */
	public void acquire(String key, String path, Holder who, Deadline deadline, boolean waitForOthers,
			Interrupts interrupts) throws AcquireFailure, InterruptedException {
		MutexEntry entry = this.engine.retain(this.entries, key, path);
		// A semaphore's guard waits for the semaphore's caller, who is counted there
		@Nullable Object waitAtMost = (who.kind() != Holder.Kind.PERMIT) ? entry.startWaiting(LocalWaiter.Mode.EXCLUSIVE) : null;
		boolean acquired = false;
		try {
			Slot slot = entry.acquireSlot(who, waitForOthers ? deadline : Deadline.after(0), interrupts);
			switch (slot) {
				case TIMED_OUT ->
					throw new AcquireFailure(LockAcquisitionException.Reason.HELD_LOCALLY, localHolder(entry), null);
				case CLOSED -> throw new AcquireFailure(LockAcquisitionException.Reason.CLOSED, "", null);
				case HANDED_OFF -> {
					acquired = true;
					return;
				}
				case GRANTED -> {
				}
			}
			entry.acquiring(Thread.currentThread());
			try {
				try (Publication publication = this.engine.acquireNode(entry, entry.path(), LockDriver.MUTEX, deadline,
						waitForOthers, interrupts)) {
					entry.held(who, publication.node());
				}
				acquired = true;
			}
			finally {
				entry.acquiring(null);
				if (!acquired) {
					entry.abandonSlot(who);
				}
			}
		}
		finally {
			if (waitAtMost != null) {
				entry.stopWaiting(waitAtMost);
			}
			interrupts.restore();
			if (!acquired) {
				this.entries.release(entry);
			}
		}
	}

	/**
	 * Release the slot held by {@code who}, then apply the lost-lock policy.
	 */
	public void release(MutexEntry entry, Holder who) {
		EntryNode.Release release = entry.releaseSlot(who, this.engine.maxLocalHandoffs(), this.engine.currentSession(),
				this.engine);
		try {
			if (release.handedOff()) {
				this.engine.tellHandedOff(entry.key());
			}
			this.engine.awaitDelete(release.delete());
		}
		finally {
			this.entries.release(entry);
		}
		this.engine.checkLost(entry, release.node());
	}

	/**
	 * Who holds a key in this JVM, as far as it can be told: a thread by name, or a node.
	 */
	private static String localHolder(MutexEntry entry) {
		Thread owner = entry.hold().ownerThread();
		if (owner != null) {
			return "holder thread '" + owner.getName() + "'";
		}
		return entry.isHeld() ? "held by a lease of this JVM" : "";
	}

	/**
	 * Remove an entry whose lingering node went from the table, unless someone uses it.
	 */
	void retireIfIdle(MutexEntry entry) {
		this.entries.retireIfIdle(entry);
	}

	/**
	 * Delete every lingering node now.
	 */
	public void endLingers() {
		this.entries.values().forEach(MutexEntry::endLinger);
	}

}
