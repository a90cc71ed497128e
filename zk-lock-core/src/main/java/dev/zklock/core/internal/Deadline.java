package dev.zklock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * A point in {@link System#nanoTime()} by which a wait ends; or none. It also keeps what
 * the wait was queued behind, if anything, so that a wait that runs out while ZooKeeper
 * has not yet answered its last round trip can tell which of the two used the wait
 * ({@link #ranOut}). One per wait, used only by the waiting thread.
 */
public final class Deadline {

	/**
	 * The least time a reply must have been outstanding, on a connected client, to blame
	 * ZooKeeper for the end of a wait ({@code NO_REPLY}): far beyond a round trip of a
	 * healthy ensemble (a few milliseconds; some tens when loaded), and beyond the pauses
	 * of a loaded JVM, during which a reply that has arrived waits to be read.
	 */
	static final long MEANINGFUL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	private final long start;

	private final long nanos;

	/** Why the wait was last queued behind another holder, if it ever was. */
	private @Nullable Reason busy;

	private String busyDetail = "";

	private Deadline(long start, long nanos) {
		this.start = start;
		this.nanos = nanos;
	}

	public static Deadline after(long nanos) {
		return new Deadline(System.nanoTime(), Math.max(0, nanos));
	}

	public static Deadline after(Duration waitAtMost) {
		return after(saturatedNanos(waitAtMost));
	}

	public static Deadline never() {
		return new Deadline(System.nanoTime(), Long.MAX_VALUE);
	}

	public boolean isInfinite() {
		return this.nanos == Long.MAX_VALUE;
	}

	public long remainingNanos() {
		if (isInfinite()) {
			return Long.MAX_VALUE;
		}
		return this.nanos - (System.nanoTime() - this.start);
	}

	public boolean isExpired() {
		return remainingNanos() <= 0;
	}

	/**
	 * Note that the wait is queued behind another holder: a thread or lease of this JVM
	 * ({@link Reason#HELD_LOCALLY}) or another participant
	 * ({@link Reason#HELD_REMOTELY}).
	 * @param reason why it waits
	 * @param detail who it waits for, as far as known
	 */
	public void queuedBehind(Reason reason, String detail) {
		this.busy = reason;
		this.busyDetail = detail;
	}

	/**
	 * Why the wait failed, when it ran out while waiting on ZooKeeper alone since
	 * {@code since}: for a reply, or for the connection to come back. The rule, so that a
	 * busy lock is not reported as a ZooKeeper problem:
	 * <ul>
	 * <li>{@code NO_REPLY} only if the stretch used a meaningful part of the wait: at
	 * least {@link #MEANINGFUL_NANOS}, and, if the wait was queued behind another holder
	 * before, at least half of the time waited (the queue did not use most of it).</li>
	 * <li>{@code NOT_CONNECTED} (the client is not connected now) likewise if the wait
	 * was queued behind another holder before; else always.</li>
	 * <li>Otherwise the wait is reported busy: the cause it was queued behind, and the
	 * round trip or reconnect that followed merely had not ended yet. A wait never queued
	 * that ends before a reply was due ends before ZooKeeper could tell whether another
	 * participant holds the lock: {@code HELD_REMOTELY}, saying so, since the wait was
	 * too short for a round trip, not ZooKeeper too slow for the wait.</li>
	 * </ul>
	 * @param zooKeeper the failure that blames ZooKeeper: {@code NO_REPLY} on a connected
	 * client, {@code NOT_CONNECTED} otherwise
	 * @param since when the stretch on ZooKeeper alone began, in
	 * {@link System#nanoTime()}
	 * @param during what the stretch waited for, for the detail: "the create of our node"
	 * @return the failure to report
	 */
	AcquireFailure ranOut(AcquireFailure zooKeeper, long since, String during) {
		Reason busyCause = this.busy;
		long now = System.nanoTime();
		long stretch = now - since;
		boolean meaningful = stretch >= MEANINGFUL_NANOS && (busyCause == null || 2 * stretch >= now - this.start);
		if (meaningful || (busyCause == null && zooKeeper.reason() == Reason.NOT_CONNECTED)) {
			return zooKeeper;
		}
		String spent = "the last " + TimeUnit.NANOSECONDS.toMillis(stretch) + " ms went to " + during;
		if (busyCause == null) {
			return AcquireFailure
				.undecided(spent + ", and the wait ran out before ZooKeeper could tell who holds the lock");
		}
		return new AcquireFailure(busyCause, (this.busyDetail.isEmpty() ? "" : this.busyDetail + "; ") + spent, null);
	}

	public Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

	public static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
