package dev.zklock.leadership;

import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.TermEnd;

/**
 * One call of leader work, open from its admission to its end, on the thread that runs
 * it: its {@link LeaderContext} while open. Interrupted once at most, and only while
 * open: when the term's node is lost or in doubt, or when a hand-off's drain ran out of
 * time. Close it in a {@code finally} block.
 *
 * @author zk-lock
 */
public final class LeaderWork implements LeaderContext, AutoCloseable {

	private final GroupLeadership group;

	private final LeaderTerm term;

	private final Thread thread;

	private final ReentrantLock lock = new ReentrantLock();

	/** Guarded by lock. */
	private boolean open = true;

	/** Guarded by lock. */
	private @Nullable TermEnd stoppedBy;

	private @Nullable AutoCloseable onEnd;

	private @Nullable Runnable context;

	LeaderWork(GroupLeadership group, LeaderTerm term) {
		this.group = group;
		this.term = term;
		this.thread = Thread.currentThread();
	}

	/**
	 * Open: listen for the term's end and be the thread's context.
	 */
	void open() {
		this.context = LeaderContextHolder.push(this);
		this.onEnd = this.term.onEnd((why) -> {
			if (!why.isHandOff()) {
				stop(why);
			}
		});
	}

	/**
	 * Interrupt the work's thread, unless the work has ended or was stopped already.
	 */
	void stop(TermEnd why) {
		this.lock.lock();
		try {
			if (!this.open || this.stoppedBy != null) {
				return;
			}
			this.stoppedBy = why;
			this.thread.interrupt();
			this.group.interrupted();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Return why the work was interrupted.
	 * @return why, or {@code null} if it was not
	 */
	public @Nullable TermEnd stoppedBy() {
		this.lock.lock();
		try {
			return this.stoppedBy;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String group() {
		return this.term.group().name();
	}

	@Override
	public long epoch() {
		return this.term.epoch();
	}

	@Override
	public LeaderTerm term() {
		return this.term;
	}

	@Override
	public boolean isLeading() {
		return this.term.isActive();
	}

	@Override
	public void checkLeading() {
		this.term.checkLeading();
	}

	/**
	 * End the work: it is interrupted no more, it is no longer the thread's context, and
	 * a drain waits for it no longer. Closing twice is a no-op.
	 */
	@Override
	public void close() {
		this.lock.lock();
		try {
			if (!this.open) {
				return;
			}
			this.open = false;
		}
		finally {
			this.lock.unlock();
		}
		AutoCloseable listening = this.onEnd;
		if (listening != null) {
			try {
				listening.close();
			}
			catch (Exception ex) {
				// Forgetting a callback does not fail
			}
		}
		Runnable restore = this.context;
		if (restore != null) {
			restore.run();
		}
		this.group.ended(this);
	}

	@Override
	public String toString() {
		return "LeaderWork[" + group() + ", epoch " + epoch() + ", " + this.thread.getName() + "]";
	}

}
