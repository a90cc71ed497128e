package dev.zklock.core.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A fenced record in memory, for leaders' writes, as {@code JdbcFencing} keeps one in a
 * table: a write with token {@code t} is accepted iff {@code t} is at least the highest
 * token accepted so far, and refused ("fenced") otherwise. Every accepted write is kept,
 * in the order accepted, with its epoch and its writer, so that the leadership it shows
 * can be checked afterwards ({@link #verdict()}). Thread safe.
 */
final class FencingRegister {

	private final String group;

	private final List<Write> accepted = new ArrayList<>();

	private long highest = Long.MIN_VALUE;

	private long fenced;

	FencingRegister(String group) {
		this.group = group;
	}

	/**
	 * Write with a token.
	 * @param epoch the writer's term's epoch, its fencing token
	 * @param participant who writes
	 * @return whether the write was accepted
	 */
	synchronized boolean write(long epoch, String participant) {
		if (epoch < this.highest) {
			this.fenced++;
			return false;
		}
		this.highest = epoch;
		this.accepted.add(new Write(epoch, participant));
		return true;
	}

	/**
	 * The highest token accepted so far.
	 * @return the token, {@link Long#MIN_VALUE} before the first write
	 */
	synchronized long highest() {
		return this.highest;
	}

	/**
	 * Check the accepted writes: (a) each epoch's are of one participant; (b) the epochs
	 * of successive terms, as the writes show them, strictly increase; (c) no write was
	 * accepted with an epoch lower than one accepted before it.
	 * @return the figures and what broke them
	 */
	synchronized Verdict verdict() {
		List<String> violations = new ArrayList<>();
		Map<Long, String> writerOfEpoch = new HashMap<>();
		Set<Long> ended = new HashSet<>();
		long previous = Long.MIN_VALUE;
		long highestSoFar = Long.MIN_VALUE;
		int terms = 0;
		for (int i = 0; i < this.accepted.size(); i++) {
			Write write = this.accepted.get(i);
			String writer = writerOfEpoch.putIfAbsent(write.epoch(), write.participant());
			if (writer != null && !writer.equals(write.participant())) {
				violations.add("(a) " + this.group + ": epoch " + write.epoch() + " written by " + writer + " and "
						+ write.participant() + " (write " + i + ")");
			}
			if (write.epoch() != previous) {
				terms++;
				if (ended.contains(write.epoch()) || write.epoch() < previous) {
					violations.add("(b) " + this.group + ": term of epoch " + write.epoch() + " after epoch " + previous
							+ " (write " + i + ")");
				}
				ended.add(previous);
				previous = write.epoch();
			}
			if (write.epoch() < highestSoFar) {
				violations.add("(c) " + this.group + ": epoch " + write.epoch() + " accepted after " + highestSoFar
						+ " (write " + i + ")");
			}
			highestSoFar = Math.max(highestSoFar, write.epoch());
		}
		return new Verdict(terms, this.accepted.size(), this.fenced, violations);
	}

	/**
	 * One accepted write.
	 *
	 * @param epoch its token
	 * @param participant its writer
	 */
	record Write(long epoch, String participant) {
	}

	/**
	 * What the accepted writes show.
	 *
	 * @param terms how many terms wrote, by their runs of one epoch
	 * @param accepted how many writes were accepted
	 * @param fenced how many were refused
	 * @param violations what broke (a), (b) or (c)
	 */
	record Verdict(int terms, int accepted, long fenced, List<String> violations) {
	}

}
