package dev.zklock.leadership;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;

import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.TermEnd;

/**
 * One group of a {@link ZkLeadership}: its candidate's listener, which admits leader work
 * while a term goes on, starts and stops the group's leader-only components with the
 * term, drains leader work before a hand-off, and tells the application.
 */
final class GroupLeadership implements LeadershipListener {

	private static final Log logger = LogFactory.getLog(ZkLeadership.class);

	private final String name;

	private final ZkLeadership leadership;

	private final List<Lifecycle> components = new CopyOnWriteArrayList<>();

	private final List<LeadershipListener> listeners = new CopyOnWriteArrayList<>();

	private final Set<LeaderWork> running = ConcurrentHashMap.newKeySet();

	private final Object drained = new Object();

	private volatile @Nullable LeaderCandidate candidate;

	/** The term whose components are started; guarded by the components' monitor. */
	private @Nullable LeaderTerm leading;

	private final AtomicLong terms = new AtomicLong();

	private final AtomicLong nanosLeading = new AtomicLong();

	/** When the current term began, by {@link System#nanoTime()}; 0 while not leading. */
	private final AtomicLong termStarted = new AtomicLong();

	private final AtomicLong handOffs = new AtomicLong();

	private final AtomicLong nanosHandingOff = new AtomicLong();

	private final AtomicLong interruptedWork = new AtomicLong();

	GroupLeadership(String name, ZkLeadership leadership) {
		this.name = name;
		this.leadership = leadership;
	}

	String name() {
		return this.name;
	}

	@Nullable LeaderCandidate candidate() {
		return this.candidate;
	}

	void joined(@Nullable LeaderCandidate candidate) {
		this.candidate = candidate;
	}

	/**
	 * Add a leader-only component; started at once if a term goes on (a lazy bean made
	 * while this instance leads), else at the next term's start.
	 */
	void addComponent(Lifecycle component) {
		synchronized (this.components) {
			this.components.add(component);
			if (this.leading != null && this.leading.isActive()) {
				start(component);
			}
		}
	}

	List<Lifecycle> components() {
		return List.copyOf(this.components);
	}

	void addListener(LeadershipListener listener) {
		this.listeners.add(listener);
	}

	int runningWork() {
		return this.running.size();
	}

	/**
	 * Admit leader work on the current thread if a term goes on.
	 */
	@Nullable LeaderWork startWork() {
		LeaderCandidate current = this.candidate;
		LeaderTerm term = (current != null) ? current.currentTerm() : null;
		if (term == null) {
			return null;
		}
		LeaderWork work = new LeaderWork(this, term);
		this.running.add(work);
		work.open();
		if (!term.isActive()) {
			// Ended while admitted: a drain may have missed it, and a loss interrupted it
			boolean interrupted = work.stoppedBy() != null;
			work.close();
			if (interrupted) {
				Thread.interrupted();
			}
			return null;
		}
		return work;
	}

	void ended(LeaderWork work) {
		if (this.running.remove(work)) {
			synchronized (this.drained) {
				this.drained.notifyAll();
			}
		}
	}

	LeadershipStatistics statistics() {
		long started = this.termStarted.get();
		long leading = this.nanosLeading.get() + ((started != 0) ? System.nanoTime() - started : 0);
		return new LeadershipStatistics(this.terms.get(), started != 0, Duration.ofNanos(leading), this.handOffs.get(),
				Duration.ofNanos(this.nanosHandingOff.get()), this.interruptedWork.get());
	}

	void interrupted() {
		this.interruptedWork.incrementAndGet();
	}

	@Override
	public void leadershipGranted(LeaderTerm term) {
		this.terms.incrementAndGet();
		this.termStarted.set(System.nanoTime());
		synchronized (this.components) {
			this.leading = term;
			this.components.forEach(this::start);
		}
		this.leadership.publish(new LeaderGrantedEvent(this.leadership, term));
		for (LeadershipListener listener : this.listeners) {
			listener.leadershipGranted(term);
		}
	}

	@Override
	public void leadershipRevoked(LeaderTerm term, TermEnd why) {
		long ended = System.nanoTime();
		long started = this.termStarted.getAndSet(0);
		if (started != 0) {
			this.nanosLeading.addAndGet(ended - started);
		}
		long deadline = ended + this.leadership.getHandOffTimeout().toNanos();
		this.leadership.publish(new LeaderRevokedEvent(this.leadership, term, why));
		for (LeadershipListener listener : this.listeners) {
			listener.leadershipRevoked(term, why);
		}
		synchronized (this.components) {
			this.leading = null;
			List<Lifecycle> reversed = new ArrayList<>(this.components);
			Collections.reverse(reversed);
			for (Lifecycle component : reversed) {
				stop(component, deadline);
			}
		}
		if (why.isHandOff()) {
			drain(term, why, deadline);
			this.handOffs.incrementAndGet();
			this.nanosHandingOff.addAndGet(System.nanoTime() - ended);
		}
		else {
			// Interrupted by the term's end already: nothing to wait for, the node is
			// gone or in doubt
			this.running.stream().filter((work) -> work.term() == term).forEach((work) -> work.stop(why));
		}
	}

	/**
	 * Wait for the term's leader work to end, until the deadline; then interrupt what
	 * still runs.
	 */
	private void drain(LeaderTerm term, TermEnd why, long deadline) {
		synchronized (this.drained) {
			while (this.running.stream().anyMatch((work) -> work.term() == term)) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					break;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(this.drained, remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
		}
		this.running.stream().filter((work) -> work.term() == term).forEach((work) -> {
			logger.warn("Leader work " + work + " still ran when the hand-off timeout of "
					+ this.leadership.getHandOffTimeout() + " passed: interrupted, and the group handed over");
			work.stop(why);
		});
	}

	private void start(Lifecycle component) {
		try {
			component.start();
		}
		catch (RuntimeException ex) {
			logger.error("Leader-only component " + component + " of group '" + this.name + "' failed to start", ex);
		}
	}

	private void stop(Lifecycle component, long deadline) {
		try {
			if (!component.isRunning()) {
				return;
			}
			if (component instanceof SmartLifecycle smart) {
				CountDownLatch stopped = new CountDownLatch(1);
				smart.stop(stopped::countDown);
				long remaining = Math.max(0, deadline - System.nanoTime());
				if (!stopped.await(remaining, TimeUnit.NANOSECONDS)) {
					logger.warn("Leader-only component " + component + " of group '" + this.name
							+ "' did not stop within the hand-off timeout");
				}
			}
			else {
				component.stop();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			logger.error("Leader-only component " + component + " of group '" + this.name + "' failed to stop", ex);
		}
	}

}
