/**
 * The exclusive lock ({@link dev.zklock.core.registry.ZkLockRegistry#obtain}),
 * wire-compatible with Curator's {@code InterProcessMutex}: a key's local FIFO queue
 * whose head alone takes a node and hands it to the next local holder, reentrancy by
 * thread, the lease that no thread owns ({@link dev.zklock.core.ZkLease}), the linger,
 * and locks on several keys. <strong>Not API</strong>: may change in any release; left
 * out of the published Javadoc. See {@link dev.zklock.core.internal} for the vocabulary.
 *
 * <p>
 * A key's entry ({@code MutexEntry}) holds two state machines under one state lock: the
 * local slot ({@code SlotQueue}: who holds, who waits; {@code SlotHold}: since when, and
 * the owner thread's nested count) and the node ({@code EntryNode}: taken, handed off,
 * kept, deleted), whose parts decide and leave the acting to it: the linger
 * ({@code EntryLinger}, configured by {@code Linger}), the mark with its bound on
 * hand-offs, and the settle of a mark raised for want of a watch ({@code MarkSettler}).
 */
@NullMarked
package dev.zklock.core.internal.mutex;

import org.jspecify.annotations.NullMarked;
