/**
 * The lock engine behind {@link dev.zklock.core.registry.ZkLockRegistry}: the machinery
 * every recipe shares. <strong>Not API</strong>: public only so that the recipe packages
 * below can use it; it may change in any release, and is left out of the published
 * Javadoc.
 *
 * <p>
 * What is here: the engine's parts, private behind the verbs the recipes and the registry
 * need ({@code Engine}), the client's requests, each through one callback-to-future
 * adapter ({@code ZkOps}), the session tracker that moves every lease with the connection
 * ({@code SessionTracker}), the reaper that deletes released nodes and retries while the
 * connection is down ({@code NodeReaper}), the one watcher ({@code LockWatches}) and
 * where its events go ({@code WatchEvents}: child events to {@code RemoteWaiters}, node
 * events to {@code Revocations}), one acquisition attempt in ZooKeeper
 * ({@code Acquisition}: its node, {@code QueuedNode}, its wait behind a predecessor,
 * {@code PredecessorWait}, and every wait to its deadline, {@code AttemptWaits}), the
 * seam where the recipes differ ({@code LockDriver}: node names, who holds, whom to wait
 * behind), how node names are read ({@code NodeNames}: protection id, queue order), and
 * the per-path entry tables ({@code LockTables}, {@code LockTable}, {@code TableEntry}).
 * The path from a key to its node goes one way, as Curator's {@code attemptLock}: a
 * recipe asks {@code Engine.acquireNode} for a node, which asks the driver who holds, and
 * gets a {@code Publication} back, in which it records the node before closing it; the
 * engine never calls the recipe's entry back. To add a lock mode, add a
 * {@code LockDriver} and a recipe package beside {@code mutex}, {@code readwrite} and
 * {@code semaphore}.
 *
 * <h2>Vocabulary</h2>
 * <dl>
 * <dt>key, lock path</dt>
 * <dd>What the user locks, and its ZooKeeper path {@code <rootPath>/<key>}.</dd>
 * <dt>entry</dt>
 * <dd>This JVM's state for one lock path and one recipe ({@code TableEntry}), kept in its
 * recipe's table only while someone of this JVM holds or waits for it.</dd>
 * <dt>participant</dt>
 * <dd>A node in a lock path's queue in ZooKeeper, of any process; the queue's order is
 * the nodes' sequence. {@code Acquisition} is one attempt of this JVM to become one and
 * hold; {@link dev.zklock.core.Participant} is a snapshot of one, for users.</dd>
 * <dt>queued node, protection id</dt>
 * <dd>The node of one {@code Acquisition} in the lock path's queue, as far as the attempt
 * knows it ({@code QueuedNode}): none, maybe created (a create whose reply has not come),
 * or owned; whatever it may own is reaped if the attempt gives up. Its name carries the
 * attempt's protection id, as Curator's protected create does, by which a create whose
 * reply was lost is found again.</dd>
 * <dt>predecessor</dt>
 * <dd>The node a participant that does not hold waits behind, as the driver names it;
 * watched alone ({@code PredecessorWait}). A semaphore's lease, behind which no single
 * node stands, watches the child list instead.</dd>
 * <dt>held node</dt>
 * <dd>The node through which this JVM holds a lock path ({@code HeldNode}), with its
 * {@link dev.zklock.core.LeaseState}; it belongs to the entry, not to a thread.</dd>
 * <dt>lease</dt>
 * <dd>Only what users know by that name: a {@link dev.zklock.core.ZkLease}, a hold that
 * no thread owns (of a mutex, or a semaphore's permit), and, on the wire, Curator's name
 * of a semaphore's permit node ({@code leases/…-lease-<seq>}). The engine's own node is a
 * held node.</dd>
 * <dt>holder</dt>
 * <dd>Who holds an entry locally ({@code Holder}): a thread, a
 * {@link dev.zklock.core.ZkLease} of a mutex, or a semaphore caller's hold of the guard
 * mutex while it adds its permit node.</dd>
 * <dt>hand-off</dt>
 * <dd>A held node passed from one local holder to the next without a ZooKeeper request,
 * bounded by {@code maxLocalHandoffs} while a participant of another JVM waits.</dd>
 * <dt>remote waiter, mark</dt>
 * <dd>A participant of another JVM queued behind a node this JVM holds; the mark
 * ({@code RemoteWaiterMark}) is an entry's flag that one may be, raised by the child
 * watch or for want of one, which makes local hand-offs and joins make way;
 * {@code RemoteWaiters} tells the entries of a path.</dd>
 * <dt>settle</dt>
 * <dd>To list a held node's lock path again with the child watch, not waited for, so that
 * the entry's mark says what the list shows behind the node ({@code QueueBehind}): an
 * exclusive entry settles a mark raised for want of a watch ({@code mutex.MarkSettler}),
 * a read/write entry one that a reader of another JVM may have raised
 * ({@code readwrite.ReadNodeSettler}).</dd>
 * <dt>linger</dt>
 * <dd>An exclusive lock's node kept for a while after its last local holder released it,
 * to be reused while no other participant queues behind it.</dd>
 * <dt>publication</dt>
 * <dd>The moment between a node's grant on the client's current session and its record in
 * its entry ({@code Publication}), during which no session event is applied, so that the
 * node misses none.</dd>
 * <dt>slot, slot queue</dt>
 * <dd>An exclusive entry's local right to hold the key, and the FIFO queue of this JVM's
 * holders that wait for it ({@code mutex.SlotQueue}); granted by the releasing holder,
 * never grabbed.</dd>
 * <dt>reap</dt>
 * <dd>Deleting a node this JVM gave up, retried until ZooKeeper confirms.</dd>
 * <dt>driver</dt>
 * <dd>What differs between recipes for a participant: its node's name, and given the
 * queue, whether it holds or which node it waits behind.</dd>
 * </dl>
 */
@NullMarked
package dev.zklock.core.internal;

import org.jspecify.annotations.NullMarked;
