package dev.zklock.core.internal.leader;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.internal.AcquireFailure;
import dev.zklock.core.internal.Deadline;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.internal.Holder;
import dev.zklock.core.internal.Interrupts;
import dev.zklock.core.internal.mutex.DefaultZkLease;
import dev.zklock.core.internal.mutex.MutexEngine;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.leader.TermEnd;

/**
 * A candidate: its own thread waits for the group's lock without end, leads while it
 * holds it, and queues again when the term ends, until closed. The thread alone acquires,
 * tells the listener and releases, so a term's listener calls never overlap; anyone may
 * end a term, which only wakes the thread.
 */
public final class DefaultLeaderCandidate implements LeaderCandidate, ZkLockListener {

	private static final Logger logger = LoggerFactory.getLogger("dev.zklock.core.Leadership");

	/** The longest pause between attempts that ZooKeeper refused. */
	private static final long MAX_RETRY_PAUSE_MS = 30_000;

	private final Engine engine;

	private final MutexEngine mutex;

	private final LeaderGroup group;

	private final OnSuspended onSuspended;

	private final LeadershipListener listener;

	private final Runnable onLeft;

	private final String participantId;

	private final Thread thread;

	private final CountDownLatch left = new CountDownLatch(1);

	private final Object monitor = new Object();

	/** Guarded by monitor. */
	private boolean closed;

	/** Guarded by monitor: the term that goes on, while the thread leads. */
	private @Nullable Term term;

	/**
	 * Create a candidate; it queues once {@link #start() started}.
	 * @param onLeft run when the candidate has left the group, to forget it
	 */
	public DefaultLeaderCandidate(Engine engine, MutexEngine mutex, LeaderGroup group, OnSuspended onSuspended,
			LeadershipListener listener, Runnable onLeft) {
		this.engine = engine;
		this.mutex = mutex;
		this.group = group;
		this.onSuspended = onSuspended;
		this.listener = listener;
		this.onLeft = onLeft;
		this.participantId = new String(engine.participantData(), StandardCharsets.UTF_8);
		this.thread = new Thread(this::run, "zk-lock-leader-" + group.name());
		this.thread.setDaemon(true);
	}

	/**
	 * Start queueing, and hear the group's lease states.
	 */
	public void start() {
		this.engine.addListener(this);
		this.thread.start();
	}

	@Override
	public LeaderGroup group() {
		return this.group;
	}

	@Override
	public String participantId() {
		return this.participantId;
	}

	@Override
	public boolean isLeader() {
		return currentTerm() != null;
	}

	@Override
	public @Nullable LeaderTerm currentTerm() {
		Term current;
		synchronized (this.monitor) {
			current = this.term;
		}
		return (current != null && current.isActive()) ? current : null;
	}

	@Override
	public @Nullable LeaderTerm awaitLeadership(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.monitor) {
			while (true) {
				Term current = this.term;
				if (current != null && current.isActive()) {
					return current;
				}
				long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
				if (remaining <= 0 || this.closed) {
					return null;
				}
				this.monitor.wait(remaining);
			}
		}
	}

	@Override
	public void yieldLeadership() {
		endTerm(TermEnd.YIELDED);
	}

	@Override
	public boolean close(Duration timeout) throws InterruptedException {
		leave();
		return this.left.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Start to leave the group, without waiting: end the term, or stop waiting.
	 */
	public void leave() {
		synchronized (this.monitor) {
			if (!this.closed) {
				this.closed = true;
				this.monitor.notifyAll();
				Term current = this.term;
				if (current != null) {
					current.end(TermEnd.CLOSED);
				}
				else {
					// Waiting for the lock (or between terms): the interrupt ends the
					// wait
					// and abandons the node
					this.thread.interrupt();
				}
			}
		}
	}

	@Override
	public void close() {
		try {
			close(Duration.ofNanos(Long.MAX_VALUE));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void leaseStateChanged(String key, String path, LeaseState state) {
		if (!path.equals(this.group.path())) {
			return;
		}
		if (state == LeaseState.LOST) {
			endTerm(TermEnd.LOST);
		}
		else if (state == LeaseState.UNCERTAIN && this.onSuspended == OnSuspended.STEP_DOWN) {
			endTerm(TermEnd.SUSPENDED);
		}
	}

	@Override
	public void connectionStateChanged(ConnectionState state) {
		// The lease states say it all
	}

	private void endTerm(TermEnd why) {
		Term current;
		synchronized (this.monitor) {
			current = this.term;
		}
		if (current != null) {
			current.end(why);
		}
	}

	private void run() {
		try {
			long pauseMs = 0;
			while (!isClosed()) {
				DefaultZkLease lease = new DefaultZkLease(this.mutex, this.group.name(), this.group.path());
				try {
					this.mutex.acquire(this.group.name(), this.group.path(), Holder.handle(lease), Deadline.never(),
							true, Interrupts.interruptible());
				}
				catch (InterruptedException ex) {
					continue;
				}
				catch (AcquireFailure ex) {
					if (ex.reason() == LockAcquisitionException.Reason.CLOSED) {
						return;
					}
					pauseMs = Math.min(MAX_RETRY_PAUSE_MS, Math.max(100, pauseMs * 2));
					logger.warn("Candidate for leader group '{}' ({}) could not queue, again in {} ms: {} {}",
							this.group.name(), this.group.path(), pauseMs, ex.reason(), ex.getMessage());
					pause(pauseMs);
					continue;
				}
				catch (IllegalStateException ex) {
					// The registry closed
					return;
				}
				pauseMs = 0;
				lease.acquired(this.mutex.entry(this.group.path()));
				lead(lease);
			}
		}
		finally {
			this.engine.removeListener(this);
			synchronized (this.monitor) {
				this.closed = true;
				this.monitor.notifyAll();
			}
			// Forgotten by the registry before close() returns, so that the group can be
			// joined again at once
			this.onLeft.run();
			this.left.countDown();
		}
	}

	/**
	 * One term: tell the listener, wait for its end, tell the listener, give up the node.
	 */
	private void lead(DefaultZkLease lease) {
		Term current = new Term(this.group, lease, this.participantId);
		synchronized (this.monitor) {
			// An interrupt meant for the wait may have come after the grant
			Thread.interrupted();
			this.term = current;
			this.monitor.notifyAll();
			if (this.closed) {
				current.end(TermEnd.CLOSED);
			}
		}
		try {
			// Hears a revocation request, and the node's delete by another client
			lease.onRevocationRequested(() -> current.end(TermEnd.REVOKED));
			LeaseState state = lease.state();
			if (state != LeaseState.HELD) {
				// Changed before this candidate listened for it
				leaseStateChanged(this.group.name(), this.group.path(), state);
			}
			this.engine.markLeading(lease.heldNodePath());
			logger.info("Leading group '{}' ({}) with epoch {}", this.group.name(), this.group.path(), current.epoch());
			tellGranted(current);
			TermEnd why = awaitEnd(current);
			logger.info("Leadership of group '{}' (epoch {}) ended: {}", this.group.name(), current.epoch(), why);
			tellRevoked(current, why);
		}
		finally {
			synchronized (this.monitor) {
				this.term = null;
			}
			release(lease);
		}
	}

	private TermEnd awaitEnd(Term current) {
		while (true) {
			try {
				TermEnd why = current.awaitEnd(Long.MAX_VALUE);
				if (why != null) {
					return why;
				}
			}
			catch (InterruptedException ex) {
				// Nobody interrupts a leading thread but to close it
				current.end(TermEnd.CLOSED);
			}
		}
	}

	private void tellGranted(Term current) {
		try {
			this.listener.leadershipGranted(current);
		}
		catch (RuntimeException ex) {
			logger.error("The listener of leader group '{}' failed when told it leads (epoch {})", this.group.name(),
					current.epoch(), ex);
		}
	}

	private void tellRevoked(Term current, TermEnd why) {
		try {
			this.listener.leadershipRevoked(current, why);
		}
		catch (RuntimeException ex) {
			logger.error("The listener of leader group '{}' failed when told its term ended ({}, epoch {})",
					this.group.name(), why, current.epoch(), ex);
		}
	}

	private void release(DefaultZkLease lease) {
		try {
			lease.release();
		}
		catch (RuntimeException ex) {
			// A lost lease says so on release: the term's end said it already
			logger.debug("Released the lease of leader group '{}': {}", this.group.name(), ex.getMessage());
		}
	}

	private boolean isClosed() {
		synchronized (this.monitor) {
			return this.closed;
		}
	}

	private void pause(long millis) {
		synchronized (this.monitor) {
			long deadline = System.currentTimeMillis() + millis;
			while (!this.closed) {
				long remaining = deadline - System.currentTimeMillis();
				if (remaining <= 0) {
					return;
				}
				try {
					this.monitor.wait(remaining);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}
	}

	@Override
	public String toString() {
		return "LeaderCandidate[" + this.group.path() + ", " + this.participantId + "]";
	}

}
