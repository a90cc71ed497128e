package dev.zklock.core;

import java.time.Instant;

import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * The connection state Curator last reported to a
 * {@link dev.zklock.core.registry.ZkLockRegistry ZkLockRegistry}.
 *
 * @param state the state, {@code null} if the client has not connected since the registry
 * was created (Curator's {@code SUSPENDED} and {@code LOST} for a client that never
 * connected leave it {@code null}: no session was suspended or lost)
 * @param since when the state was reported
 * @author zk-lock
 */
public record ConnectionStatus(@Nullable ConnectionState state, Instant since) {
}
