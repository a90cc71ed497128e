/**
 * Where the engine is put together: {@link dev.zklock.core.registry.ZkLockRegistry}, the
 * entry point that builds the engine on a Curator client and hands out the locks, leases,
 * read/write locks and semaphores of {@link dev.zklock.core}.
 *
 * <p>
 * It sits above both the API ({@code dev.zklock.core}) and the engine
 * ({@code dev.zklock.core.internal…}): the engine implements the API's types, and only
 * this package knows the engine's classes, so no package depends back on the one that
 * depends on it.
 */
@NullMarked
package dev.zklock.core.registry;

import org.jspecify.annotations.NullMarked;
