package dev.zklock.core;

import java.time.Duration;

/**
 * A point in {@link System#nanoTime()} by which a wait ends; or none.
 */
final class Deadline {

	private final long start;

	private final long nanos;

	private Deadline(long start, long nanos) {
		this.start = start;
		this.nanos = nanos;
	}

	static Deadline after(long nanos) {
		return new Deadline(System.nanoTime(), Math.max(0, nanos));
	}

	static Deadline after(Duration wait) {
		return after(saturatedNanos(wait));
	}

	static Deadline never() {
		return new Deadline(System.nanoTime(), Long.MAX_VALUE);
	}

	boolean isInfinite() {
		return this.nanos == Long.MAX_VALUE;
	}

	long remainingNanos() {
		if (isInfinite()) {
			return Long.MAX_VALUE;
		}
		return this.nanos - (System.nanoTime() - this.start);
	}

	boolean isExpired() {
		return remainingNanos() <= 0;
	}

	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
