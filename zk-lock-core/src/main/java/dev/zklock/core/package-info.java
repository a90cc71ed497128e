/**
 * The zk-lock engine: a ZooKeeper lock with one participant per JVM per key, local FIFO
 * hand-off, fencing tokens and explicit session-loss states. No Spring dependency.
 *
 * <p>
 * Start with {@link ZkLockRegistry}.
 */
@NullMarked
package dev.zklock.core;

import org.jspecify.annotations.NullMarked;

import dev.zklock.core.registry.ZkLockRegistry;
