package dev.zklock.aop;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.annotation.OnLocked;
import dev.zklock.template.LockMode;
import dev.zklock.annotation.OnLost;

/**
 * The attributes of one lock annotation on a method, whichever annotation it is, so that
 * both are resolved and checked by the same code, as Spring's cache operations share one
 * parser for {@code @Cacheable} and its siblings.
 *
 * @param annotation the annotation, as {@code @DistributedLock}, for messages
 * @param key the key expression as written
 * @param name the name attribute, unresolved
 * @param waitAtMost the waitAtMost attribute, unresolved
 * @param waitMs the waitMs attribute
 * @param onLocked what a busy call does
 * @param fallback the fallback method's name, empty for none
 * @param holdAtLeast the holdAtLeast attribute, unresolved; empty for a semaphore
 * @param mode the lock taken; {@link LockMode#EXCLUSIVE} for a semaphore
 * @param permits the semaphore's permits, 0 for a lock
 * @param revocable whether a revocation request interrupts the method; false for a
 * semaphore
 * @param onLost what a lost lock does to the method's work
 */
record LockDeclaration(String annotation, String key, String name, String waitAtMost, long waitMs, OnLocked onLocked,
		String fallback, String holdAtLeast, LockMode mode, int permits, boolean revocable, OnLost onLost) {

	static final String LOCK = "@DistributedLock";

	static final String SEMAPHORE = "@DistributedSemaphore";

	static LockDeclaration of(DistributedLock lock) {
		return new LockDeclaration(LOCK, lock.key(), lock.name(), lock.waitAtMost(), lock.waitMs(), lock.onLocked(),
				lock.fallback(), lock.holdAtLeast(), lock.mode(), 0, lock.revocable(), lock.onLost());
	}

	static LockDeclaration of(DistributedSemaphore semaphore) {
		return new LockDeclaration(SEMAPHORE, semaphore.key(), semaphore.name(), semaphore.waitAtMost(),
				semaphore.waitMs(), semaphore.onLocked(), semaphore.fallback(), "", LockMode.EXCLUSIVE,
				semaphore.permits(), false, semaphore.onLost());
	}

	boolean isSemaphore() {
		return this.annotation.equals(SEMAPHORE);
	}

	/**
	 * The ZooKeeper recipe the key is locked with: one key expression must use one recipe
	 * (and a semaphore one number of permits) everywhere, or the declarations would not
	 * exclude each other.
	 */
	String recipe() {
		if (isSemaphore()) {
			return "a semaphore of " + this.permits + " permit" + ((this.permits == 1) ? "" : "s");
		}
		return (this.mode == LockMode.EXCLUSIVE) ? "an exclusive lock" : "a read/write lock";
	}

	/**
	 * How the declaration locks, for messages: {@code @DistributedLock(mode = READ)}.
	 */
	String describe() {
		if (isSemaphore()) {
			return SEMAPHORE + "(permits = " + this.permits + ")";
		}
		return (this.mode == LockMode.EXCLUSIVE) ? LOCK : LOCK + "(mode = " + this.mode + ")";
	}

}
