package dev.zklock.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockLostException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;

/**
 * The engine's lock, but a reentrant attempt on a hold whose lease was lost throws instead of
 * counting one more hold: Spring Integration's leader initiator re-locks on every heartbeat to
 * learn whether it still leads, and the engine's reentrant path never asks ZooKeeper.
 */
final class IntegrationZkLock implements ZkLock {

	private final ZkLock delegate;

	IntegrationZkLock(ZkLock delegate) {
		this.delegate = delegate;
	}

	@Override
	public void lock() {
		checkNotLost();
		this.delegate.lock();
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		checkNotLost();
		this.delegate.lockInterruptibly();
	}

	@Override
	public boolean tryLock() {
		checkNotLost();
		return this.delegate.tryLock();
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		checkNotLost();
		return this.delegate.tryLock(time, unit);
	}

	@Override
	public void acquire(Duration wait) {
		checkNotLost();
		this.delegate.acquire(wait);
	}

	@Override
	public void unlock() {
		this.delegate.unlock();
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return this.delegate.isHeldByCurrentThread();
	}

	@Override
	public long fencingToken() {
		return this.delegate.fencingToken();
	}

	@Override
	public LeaseState leaseState() {
		return this.delegate.leaseState();
	}

	@Override
	public ZkLease toLease() {
		return this.delegate.toLease();
	}

	@Override
	public String key() {
		return this.delegate.key();
	}

	@Override
	public String path() {
		return this.delegate.path();
	}

	/**
	 * Only this thread can end its own hold, so what is read here stays true until the
	 * attempt; a lease that becomes lost meanwhile is caught by the next attempt or the unlock.
	 */
	private void checkNotLost() {
		if (this.delegate.isHeldByCurrentThread() && this.delegate.leaseState() == LeaseState.LOST) {
			throw new LockLostException(this.delegate.key(), this.delegate.path(), this.delegate.fencingToken());
		}
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
