package dev.zklock.core.internal;

import java.util.concurrent.locks.Lock;

/**
 * How one acquisition treats interrupts: throw at once, or remember and restore them when
 * the acquisition ends (for {@link Lock#lock()}).
 */
public final class Interrupts {

	private final boolean interruptible;

	private boolean deferred;

	private Interrupts(boolean interruptible) {
		this.interruptible = interruptible;
	}

	public static Interrupts interruptible() {
		return new Interrupts(true);
	}

	static Interrupts deferred() {
		return new Interrupts(false);
	}

	/**
	 * Called when a wait was interrupted: rethrows if interruptible, else remembers.
	 */
	public void interrupted(InterruptedException ex) throws InterruptedException {
		if (this.interruptible) {
			throw ex;
		}
		this.deferred = true;
	}

	/**
	 * Restore an interrupt that was deferred.
	 */
	public void restore() {
		if (this.deferred) {
			Thread.currentThread().interrupt();
		}
	}

}
