package dev.zklock.core.faults;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The longest a thread that asked to sleep 5 ms slept beyond that, while the meter runs:
 * what the machine and the JVM (scheduling, GC) did to every thread of this JVM, the
 * engine's included. A bound on how punctual a wait is allows for it, so that a loaded
 * machine's stall is not blamed on the engine.
 */
final class HiccupMeter implements AutoCloseable {

	private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final AtomicLong worstNanos = new AtomicLong();

	private volatile boolean closed;

	private HiccupMeter() {
	}

	/**
	 * Start measuring, on a daemon thread of its own, until {@link #close()}.
	 */
	static HiccupMeter start() {
		HiccupMeter meter = new HiccupMeter();
		Thread thread = new Thread(meter::measure, "hiccup-meter");
		thread.setDaemon(true);
		thread.start();
		return meter;
	}

	private void measure() {
		while (!this.closed) {
			long before = System.nanoTime();
			LockSupport.parkNanos(PERIOD_NANOS);
			this.worstNanos.accumulateAndGet(System.nanoTime() - before - PERIOD_NANOS, Math::max);
		}
	}

	/**
	 * The worst stall seen so far.
	 */
	long worstNanos() {
		return this.worstNanos.get();
	}

	@Override
	public void close() {
		this.closed = true;
	}

}
