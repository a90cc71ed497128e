package dev.zklock.core.faults;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.zklock.core.LeaseState;

/**
 * Every critical section the fault checker's participants entered, and what was known
 * about each while it ran, checked afterwards: an exclusive hold, a read or a write hold
 * of a read/write lock, or a permit of a semaphore of a known number of permits.
 *
 * <p>
 * A hold is <em>compromised</em> from the moment its holder could no longer be sure it
 * held: its lease left {@code HELD} (as the engine reported it), its connection was
 * suspended (for a plain Curator mutex, which keeps no lease state), or the checker
 * itself expired its session. Two holds of one key that overlap, unless both are reads,
 * are a <em>violation</em> unless one of them was compromised before the overlap ended:
 * ZooKeeper tells an old holder of its loss only after the server deleted its node, and
 * that window is what fencing tokens are for. A semaphore of N permits is the same with N
 * + 1 holds for two: N + 1 holds of its key at once are a violation unless one of them
 * was compromised before the first of them ended. Tokens must never go back: among
 * exclusive and write holds that were never compromised, one that starts after another
 * carries a token at least as large.
 */
final class HoldLog {

	private final Queue<Hold> holds = new ConcurrentLinkedQueue<>();

	/** Holds running now, by participant, for marking them compromised. */
	private final Map<String, Set<Hold>> active = new ConcurrentHashMap<>();

	/**
	 * Participants whose session the checker closed on the server, and since when, until
	 * their client moves to a new session: every hold they begin meanwhile runs on a dead
	 * session whose node the server has deleted, though the participant cannot know it
	 * yet.
	 */
	private final Map<String, Long> inDoubt = new ConcurrentHashMap<>();

	/** What the chaos did and when, for reading a violation against. */
	private final Queue<String> events = new ConcurrentLinkedQueue<>();

	/** The permits of each semaphore key. */
	private final Map<String, Integer> permits = new ConcurrentHashMap<>();

	/**
	 * What a hold is.
	 */
	enum Kind {

		/** A hold of an exclusive lock: nobody else holds the key meanwhile. */
		EXCLUSIVE,

		/** A read hold of a read/write lock: only other reads hold the key meanwhile. */
		READ,

		/** A write hold of a read/write lock: nobody else holds the key meanwhile. */
		WRITE,

		/** A permit of a semaphore: at most its permits hold the key at once. */
		PERMIT

	}

	/**
	 * Note that a key is a semaphore's, of so many permits.
	 */
	void permits(String key, int permits) {
		this.permits.put(key, permits);
	}

	/**
	 * Start recording a hold that began now.
	 */
	Hold enter(String participant, String key, Kind kind) {
		Hold hold = new Hold(participant, key, kind, System.nanoTime());
		this.active.computeIfAbsent(participant, (p) -> ConcurrentHashMap.newKeySet()).add(hold);
		if (this.inDoubt.containsKey(participant)) {
			hold.compromise(hold.entered);
		}
		return hold;
	}

	/**
	 * End a hold now.
	 */
	void exit(Hold hold, long token, LeaseState entryState, LeaseState exitState) {
		hold.exited = System.nanoTime();
		hold.token = token;
		hold.entryState = entryState;
		hold.exitState = exitState;
		if (entryState != LeaseState.HELD) {
			hold.noticed(hold.entered);
		}
		if (exitState != LeaseState.HELD) {
			hold.noticed(hold.exited);
		}
		this.active.get(hold.participant).remove(hold);
		this.holds.add(hold);
	}

	/**
	 * The participant itself learned that it may no longer hold (a lease state or
	 * connection event): its running holds are compromised from now, all of them or those
	 * of one key.
	 */
	void noticed(String participant, String key) {
		long now = System.nanoTime();
		running(participant, key, (hold) -> hold.noticed(now));
	}

	/**
	 * The checker did something that may end the participant's holds without its knowing,
	 * such as expiring its session: its running holds are compromised from now.
	 */
	void compromise(String participant) {
		long now = System.nanoTime();
		running(participant, null, (hold) -> hold.compromise(now));
	}

	private void running(String participant, String key, java.util.function.Consumer<Hold> action) {
		Set<Hold> running = this.active.get(participant);
		if (running != null) {
			for (Hold hold : running) {
				if (key == null || hold.key.equals(key)) {
					action.accept(hold);
				}
			}
		}
	}

	/**
	 * The participant's session was closed on the server: its running holds are
	 * compromised, and so is every hold it begins until {@link #newSession}.
	 */
	void sessionKilled(String participant) {
		this.inDoubt.put(participant, System.nanoTime());
		compromise(participant);
	}

	/**
	 * The participant's client has a new session (or knows it lost the old one).
	 */
	void newSession(String participant) {
		this.inDoubt.remove(participant);
	}

	/**
	 * Note what the chaos did, on the holds' clock.
	 */
	void event(String what) {
		this.events.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime()) + " us " + what);
	}

	List<String> events() {
		return new ArrayList<>(this.events);
	}

	/**
	 * How many holds participants whose name starts so recorded.
	 */
	long countOf(String participantPrefix) {
		return this.holds.stream().filter((hold) -> hold.participant.startsWith(participantPrefix)).count();
	}

	/**
	 * How many holds of a kind participants whose name starts so recorded.
	 */
	long countOf(String participantPrefix, Kind kind) {
		return this.holds.stream()
			.filter((hold) -> hold.kind == kind && hold.participant.startsWith(participantPrefix))
			.count();
	}

	int size() {
		return this.holds.size();
	}

	/**
	 * Check every key's holds.
	 */
	Verdict verdict() {
		Map<String, List<Hold>> byKey = new HashMap<>();
		for (Hold hold : this.holds) {
			byKey.computeIfAbsent(hold.key, (k) -> new ArrayList<>()).add(hold);
		}
		Verdict verdict = new Verdict();
		for (Map.Entry<String, List<Hold>> entry : byKey.entrySet()) {
			List<Hold> keyHolds = entry.getValue();
			keyHolds.sort(Comparator.comparingLong((Hold hold) -> hold.entered));
			Integer permits = this.permits.get(entry.getKey());
			long highestToken = Long.MIN_VALUE;
			Hold highest = null;
			// The holds entered before the current one and not yet exited when it entered
			PriorityQueue<Hold> open = new PriorityQueue<>(Comparator.comparingLong((Hold hold) -> hold.exited));
			for (Hold later : keyHolds) {
				// Among exclusive holds that kept their lease throughout; a compromised
				// one may carry a stale token, which is what fencing exists to reject
				if (later.kind != Kind.READ && later.kind != Kind.PERMIT && later.token >= 0
						&& later.compromisedAt.get() == Long.MAX_VALUE) {
					if (later.token < highestToken) {
						verdict.regressions.add(highest + " then " + later);
					}
					else {
						highestToken = later.token;
						highest = later;
					}
				}
				while (!open.isEmpty() && open.peek().exited <= later.entered) {
					open.poll();
				}
				if (permits != null) {
					overCapacity(verdict, permits, open, later);
				}
				else {
					for (Hold earlier : open) {
						if (earlier.kind != Kind.READ || later.kind != Kind.READ) {
							overlap(verdict, earlier, later);
						}
					}
				}
				open.add(later);
			}
		}
		return verdict;
	}

	private static void overlap(Verdict verdict, Hold earlier, Hold later) {
		long end = Math.min(earlier.exited, later.exited);
		long compromisedAt = Math.min(earlier.compromisedAt.get(), later.compromisedAt.get());
		if (compromisedAt <= end) {
			verdict.fenced++;
			// When the older holder itself learned of it; if it never did while holding,
			// its exit
			long noticed = Math.min(earlier.noticedAt.get(), earlier.exited);
			verdict.longestNoticeLagNanos = Math.max(verdict.longestNoticeLagNanos, noticed - later.entered);
		}
		else {
			verdict.violations.add(earlier + " overlaps " + later);
		}
	}

	/**
	 * Whether {@code later} enters a semaphore's key while {@code permits} others hold
	 * it: a violation if some {@code permits} of them and {@code later} were none of them
	 * compromised before the first of those ends. For one permit, this is
	 * {@link #overlap}'s rule.
	 */
	private static void overCapacity(Verdict verdict, int permits, Collection<Hold> open, Hold later) {
		if (open.size() < permits) {
			return;
		}
		List<Hold> together = new ArrayList<>(open);
		together.add(later);
		// Try each hold's exit as the end of the time all of a group hold together: the
		// group is every hold that lasts that long and is not compromised by then
		for (Hold first : together) {
			long end = first.exited;
			if (end > later.exited || first.compromisedAt.get() <= end || later.compromisedAt.get() <= end) {
				continue;
			}
			List<Hold> group = together.stream()
				.filter((hold) -> hold.exited >= end && hold.compromisedAt.get() > end)
				.toList();
			if (group.size() > permits) {
				verdict.violations.add(group.size() + " holds of " + permits + " permits at once: " + group);
				return;
			}
		}
		verdict.fenced++;
	}

	/**
	 * One critical section.
	 */
	static final class Hold {

		final String participant;

		final String key;

		final Kind kind;

		final long entered;

		volatile long exited;

		volatile long token = -1;

		volatile LeaseState entryState;

		volatile LeaseState exitState;

		final AtomicLong compromisedAt = new AtomicLong(Long.MAX_VALUE);

		/** When the holder itself learned it may no longer hold. */
		final AtomicLong noticedAt = new AtomicLong(Long.MAX_VALUE);

		Hold(String participant, String key, Kind kind, long entered) {
			this.participant = participant;
			this.key = key;
			this.kind = kind;
			this.entered = entered;
		}

		void compromise(long at) {
			this.compromisedAt.accumulateAndGet(at, Math::min);
		}

		void noticed(long at) {
			this.noticedAt.accumulateAndGet(at, Math::min);
			compromise(at);
		}

		@Override
		public String toString() {
			long compromised = this.compromisedAt.get();
			return "[" + this.participant + " " + this.kind.name().toLowerCase() + " " + this.key + " token "
					+ this.token + " entered " + TimeUnit.NANOSECONDS.toMicros(this.entered) + " us exited +"
					+ TimeUnit.NANOSECONDS.toMicros(this.exited - this.entered) + " us " + this.entryState + "->"
					+ this.exitState
					+ ((compromised != Long.MAX_VALUE)
							? " compromised +" + TimeUnit.NANOSECONDS.toMicros(compromised - this.entered) + " us" : "")
					+ "]";
		}

	}

	/**
	 * What the check found.
	 */
	static final class Verdict {

		final List<String> violations = new ArrayList<>();

		final List<String> regressions = new ArrayList<>();

		/** Overlaps where one side was compromised in time: the window fencing covers. */
		int fenced;

		/**
		 * How long after the newer holder entered the older one learned of its loss (or
		 * ended its hold without learning it), at worst.
		 */
		long longestNoticeLagNanos;

	}

}
