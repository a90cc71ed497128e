package dev.zklock.core.internal.leader;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.LeaseState;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipLostException;
import dev.zklock.core.leader.TermEnd;
import dev.zklock.core.internal.mutex.DefaultZkLease;

/**
 * One term: the lease that holds the group's lock, and how the term ends. It ends once,
 * whoever ends it first: the node's loss on ZooKeeper's event thread, or a step down.
 */
final class Term implements LeaderTerm {

	private static final Logger logger = LoggerFactory.getLogger("dev.zklock.core.Leadership");

	private final LeaderGroup group;

	private final DefaultZkLease lease;

	private final String participantId;

	private final long epoch;

	private final Instant since = Instant.now();

	private final CompletableFuture<TermEnd> end = new CompletableFuture<>();

	private final Set<Consumer<TermEnd>> callbacks = new CopyOnWriteArraySet<>();

	Term(LeaderGroup group, DefaultZkLease lease, String participantId) {
		this.group = group;
		this.lease = lease;
		this.participantId = participantId;
		this.epoch = lease.fencingToken();
	}

	/**
	 * End the term, unless it ended already; tells the callbacks on this thread.
	 * @return whether this call ended it
	 */
	boolean end(TermEnd why) {
		if (!this.end.complete(why)) {
			return false;
		}
		for (Consumer<TermEnd> callback : this.callbacks) {
			tell(callback, why);
		}
		return true;
	}

	/**
	 * Wait for the end, at most {@code millis}; null if it has not come.
	 */
	@Nullable TermEnd awaitEnd(long millis) throws InterruptedException {
		try {
			return this.end.get(millis, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			return null;
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
	}

	DefaultZkLease lease() {
		return this.lease;
	}

	@Override
	public LeaderGroup group() {
		return this.group;
	}

	@Override
	public long epoch() {
		return this.epoch;
	}

	@Override
	public String participantId() {
		return this.participantId;
	}

	@Override
	public Instant since() {
		return this.since;
	}

	@Override
	public LeaseState state() {
		return this.lease.state();
	}

	@Override
	public boolean isActive() {
		return !this.end.isDone() && this.lease.state() != LeaseState.LOST;
	}

	@Override
	public Optional<TermEnd> end() {
		return Optional.ofNullable(this.end.getNow(null));
	}

	@Override
	public void checkLeading() {
		TermEnd ended = this.end.getNow(null);
		if (ended != null) {
			throw new LeadershipLostException(this.group.name(), this.epoch, "the term ended (" + ended + ")");
		}
		String lost = this.lease.lostBecause();
		if (lost != null) {
			throw new LeadershipLostException(this.group.name(), this.epoch, lost);
		}
	}

	@Override
	public GuardedTransaction guardedTransaction() {
		return this.lease.guardedTransaction();
	}

	@Override
	public AutoCloseable onEnd(Consumer<TermEnd> callback) {
		Consumer<TermEnd> once = new Once(callback);
		this.callbacks.add(once);
		TermEnd ended = this.end.getNow(null);
		if (ended != null && this.callbacks.remove(once)) {
			// Ended before the callback was added, or while: told here, once
			tell(once, ended);
		}
		return () -> this.callbacks.remove(once);
	}

	private void tell(Consumer<TermEnd> callback, TermEnd why) {
		try {
			callback.accept(why);
		}
		catch (RuntimeException ex) {
			logger.warn("A callback on the end of leadership of group '{}' failed", this.group.name(), ex);
		}
	}

	@Override
	public String toString() {
		return "LeaderTerm[" + this.group.path() + ", epoch " + this.epoch + "]";
	}

	/** A callback told at most once: the end and {@link #onEnd} may both see it. */
	private static final class Once implements Consumer<TermEnd> {

		private final Consumer<TermEnd> callback;

		private boolean told;

		Once(Consumer<TermEnd> callback) {
			this.callback = callback;
		}

		@Override
		public void accept(TermEnd why) {
			synchronized (this) {
				if (this.told) {
					return;
				}
				this.told = true;
			}
			this.callback.accept(why);
		}

	}

}
