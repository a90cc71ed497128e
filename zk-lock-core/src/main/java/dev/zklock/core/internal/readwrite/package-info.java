/**
 * The read/write lock ({@link dev.zklock.core.registry.ZkLockRegistry#obtainReadWrite}),
 * wire-compatible with Curator's {@code InterProcessReadWriteLock}: the threads of this
 * JVM that read share one read node; a writer holds its own. <strong>Not API</strong>:
 * may change in any release; left out of the published Javadoc. See
 * {@link dev.zklock.core.internal} for the vocabulary.
 */
@NullMarked
package dev.zklock.core.internal.readwrite;

import org.jspecify.annotations.NullMarked;
