/**
 * Leadership: one participant of a group leads, its epoch fences what it writes, and it
 * hands over when it stops. Joined through
 * {@link dev.zklock.core.registry.ZkLockRegistry#joinLeadership}.
 *
 * <h2>Vocabulary</h2>
 * <dl>
 * <dt>group</dt>
 * <dd>What participants compete to lead ({@link LeaderGroup}): a name, and its ZooKeeper
 * path {@code <rootPath>/<name>}, {@code /leaders/<name>} by default, apart from the lock
 * keys. The path is an exclusive lock in Curator's layout, so a Curator
 * {@code LeaderSelector} (and Spring Integration's {@code LeaderInitiator}) on the same
 * path competes in the same group.</dd>
 * <dt>candidate</dt>
 * <dd>This JVM's participant in a group ({@link LeaderCandidate}): one node in the
 * group's queue, waiting for the exclusive lock or holding it, from the moment it joins
 * until it is closed.</dd>
 * <dt>leader, term</dt>
 * <dd>The candidate that holds the group's lock leads; a {@link LeaderTerm} is one
 * uninterrupted holding, from the grant to its {@link TermEnd end}. A candidate has at
 * most one term at a time, and many in its life.</dd>
 * <dt>epoch</dt>
 * <dd>A term's fencing token: the creation zxid of the node it holds. It strictly
 * increases from term to term across the whole ensemble, also when the group's path is
 * deleted and made again, and is the fencing token of a lock without conversion.</dd>
 * <dt>member</dt>
 * <dd>A snapshot of one node in a group's queue, of any process ({@link GroupMember}):
 * what every instance reads alike.</dd>
 * <dt>step down, hand-off</dt>
 * <dd>To end a term on purpose ({@link TermEnd#YIELDED}, {@link TermEnd#REVOKED},
 * {@link TermEnd#CLOSED}): the listener is told first, so that leader work drains, then
 * the node is deleted, and the next candidate in the queue leads.</dd>
 * </dl>
 */
@NullMarked
package dev.zklock.core.leader;

import org.jspecify.annotations.NullMarked;
