package dev.zklock.leadership;

import java.time.Duration;

/**
 * What one group's leadership has done on this instance since the application started,
 * for meters.
 *
 * @param terms how many terms this instance began
 * @param leading whether a term goes on now
 * @param timeLeading how long this instance led, the current term included
 * @param handOffs how many terms it handed over (closed, yielded, revoked)
 * @param timeHandingOff how long its hand-offs took in all: from the end of each term
 * until its leader work drained and its components stopped, after which the node goes
 * @param interruptedWork how many calls of leader work were interrupted: at a lost or
 * doubtful term, or at a hand-off's timeout
 * @author zk-lock
 */
public record LeadershipStatistics(long terms, boolean leading, Duration timeLeading, long handOffs,
		Duration timeHandingOff, long interruptedWork) {

}
