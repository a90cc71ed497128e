/**
 * The exclusive lock ({@link dev.zklock.core.registry.ZkLockRegistry#obtain}),
 * wire-compatible with Curator's {@code InterProcessMutex}: a key's local FIFO queue
 * whose head alone takes a node and hands it to the next local holder, reentrancy by
 * thread, the lease that no thread owns ({@link dev.zklock.core.ZkLease}), the linger,
 * and locks on several keys. <strong>Not API</strong>: may change in any release; left
 * out of the published Javadoc. See {@link dev.zklock.core.internal} for the vocabulary.
 */
@NullMarked
package dev.zklock.core.internal.mutex;

import org.jspecify.annotations.NullMarked;
