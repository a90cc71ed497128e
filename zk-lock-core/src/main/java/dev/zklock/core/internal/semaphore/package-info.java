/**
 * The counting semaphore
 * ({@link dev.zklock.core.registry.ZkLockRegistry#obtainSemaphore}), node for node as
 * Curator's {@code InterProcessSemaphoreV2}: a guard mutex (through the {@code mutex}
 * recipe) and one lease node per permit. <strong>Not API</strong>: may change in any
 * release; left out of the published Javadoc. See {@link dev.zklock.core.internal} for
 * the vocabulary.
 */
@NullMarked
package dev.zklock.core.internal.semaphore;

import org.jspecify.annotations.NullMarked;
