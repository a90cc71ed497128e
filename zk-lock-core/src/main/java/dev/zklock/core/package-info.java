/**
 * The zk-lock engine: a ZooKeeper lock with one participant per JVM per key, local FIFO
 * hand-off, fencing tokens and explicit session-loss states. No Spring dependency.
 *
 * <p>
 * Start with {@link dev.zklock.core.registry.ZkLockRegistry ZkLockRegistry}.
 */
@NullMarked
package dev.zklock.core;

import org.jspecify.annotations.NullMarked;
