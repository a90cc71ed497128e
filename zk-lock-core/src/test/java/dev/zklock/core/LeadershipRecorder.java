package dev.zklock.core;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.TermEnd;

/**
 * A candidate's listener that writes down what it was told, in order:
 * {@code granted <epoch>} and {@code revoked <epoch> <why>}.
 */
public final class LeadershipRecorder implements LeadershipListener {

	/** What the listener was told, in order. */
	public final Queue<String> events = new ConcurrentLinkedQueue<>();

	@Override
	public void leadershipGranted(LeaderTerm term) {
		this.events.add("granted " + term.epoch());
	}

	@Override
	public void leadershipRevoked(LeaderTerm term, TermEnd why) {
		this.events.add("revoked " + term.epoch() + " " + why);
	}

}
