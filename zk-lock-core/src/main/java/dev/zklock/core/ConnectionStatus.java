package dev.zklock.core;

import java.time.Instant;

import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * The connection state Curator last reported to a {@link ZkLockRegistry}.
 *
 * @param state the state, {@code null} if the client has not connected since the registry
 * was created
 * @param since when the state was reported
 * @author zk-lock
 */
public record ConnectionStatus(@Nullable ConnectionState state, Instant since) {
}
