/**
 * The read/write lock ({@link dev.zklock.core.registry.ZkLockRegistry#obtainReadWrite}),
 * wire-compatible with Curator's {@code InterProcessReadWriteLock}: the threads of this
 * JVM that read share one read node; a writer holds its own. <strong>Not API</strong>:
 * may change in any release; left out of the published Javadoc. See
 * {@link dev.zklock.core.internal} for the vocabulary.
 *
 * <p>
 * A key's entry ({@code ReadWriteEntry}) takes a hold in steps under one state lock: the
 * local lock's fair order ({@code LocalAdmission}), then for a reader the join of the
 * read node ({@code Join}), or a node of its own; its nodes, and which covers the reads
 * after a downgrade, are {@code EntryNodes}, and the mark that bounds the joins is
 * settled by {@code ReadNodeSettler}.
 */
@NullMarked
package dev.zklock.core.internal.readwrite;

import org.jspecify.annotations.NullMarked;
