/**
 * {@link dev.zklock.template.ZkLockTemplate}: run code under a lock, observed.
 *
 * <h2>Vocabulary</h2> The engine's words ({@code dev.zklock.core.internal}: holder, held
 * node, lease, hand-off) keep their meaning here; the template adds these.
 * <dl>
 * <dt>definition</dt>
 * <dd>How a lock is taken and held ({@link dev.zklock.template.LockDefinition}): its
 * name, what is taken, the wait, the minimum hold, the busy outcome. The wait's names
 * from the annotation to the engine are listed there.</dd>
 * <dt>recipe lock</dt>
 * <dd>What a definition takes on some keys, through its Curator recipe: the exclusive
 * locks of the keys, one side of their read/write locks, or a semaphore's permit
 * ({@code RecipeLock}). The only place where the recipes differ; one per
 * acquisition.</dd>
 * <dt>hold</dt>
 * <dd>One acquisition of a recipe lock by the template, from acquired to released
 * ({@code Hold}): the work's {@link dev.zklock.template.LockContext} while it runs, what
 * stops the work (a revocation request, a lost lease), and how the hold ends (now, or
 * once its minimum hold has passed). It is held by the calling thread, by a stage, or by
 * a {@link dev.zklock.core.ZkLease} ({@code ObservedLease}); a reentrant hold is neither
 * observed nor tracked.</dd>
 * <dt>hold tracker</dt>
 * <dd>What the holds of one template share ({@code HoldTracker}): the holds now, whose
 * oldest names each key held ({@link dev.zklock.template.ZkLockTemplate#holderNames()}),
 * the minimum hold scheduler, and the watch of lost leases.</dd>
 * <dt>minimum hold</dt>
 * <dd>How long a lock stays held after it was acquired, whenever its work ends
 * ({@code holdAtLeast}, ShedLock's {@code lockAtLeastFor}). A release deferred until then
 * is pending in the {@link dev.zklock.template.MinimumHoldScheduler}.</dd>
 * <dt>lock context</dt>
 * <dd>A hold seen from its work ({@link dev.zklock.template.LockContext}); a hold on the
 * calling thread is its own context, and a lease's is made from the lease
 * ({@code AbstractLockContext}, which reads tokens and state when asked).</dd>
 * </dl>
 */
@NullMarked
package dev.zklock.template;

import org.jspecify.annotations.NullMarked;
