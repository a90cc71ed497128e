/**
 * Micrometer metrics for zk-lock: gauges and counters bound from the lock registry. The
 * wait and hold timers come from the {@code zklock.acquire} and {@code zklock.held}
 * observations.
 */
@NullMarked
package dev.zklock.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
