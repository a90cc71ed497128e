/**
 * The cluster view: every key under the lock root path, its holders and its queue, across
 * all JVMs, read at once, with what each instance reports of its own leases. Read through
 * {@link dev.zklock.core.registry.ZkLockRegistry#clusterView}; published through
 * {@link dev.zklock.core.registry.ZkLockRegistry#publishReports}.
 *
 * <h2>Vocabulary</h2>
 * <dl>
 * <dt>view</dt>
 * <dd>One read of the cluster ({@link ClusterView}): what ZooKeeper shows of the lock
 * nodes, merged with the instances' reports. ZooKeeper is the truth of who holds; a
 * report adds what only the holder knows.</dd>
 * <dt>node view</dt>
 * <dd>One lock node as the view shows it ({@link NodeView}), of any process: a zk-lock
 * instance's, a plain Curator recipe's, or a lost hold that only its instance still
 * reports.</dd>
 * <dt>report</dt>
 * <dd>What one instance says of itself: its connection state, and for each of its holds
 * the thread, since when, the fencing token and the lease state; for each of its waiting
 * calls the thread and since when. An ephemeral node under
 * {@link ViewOptions#instancesPath()}, one per session, rewritten when anything changes
 * (at most every {@link ViewOptions#reportInterval()}) and at least every
 * {@link ViewOptions#heartbeat()}.</dd>
 * <dt>silent instance</dt>
 * <dd>An instance whose report has not been rewritten for three heartbeats while others'
 * were: it may be suspended, paused or cut off, and its holds are in doubt.</dd>
 * <dt>page</dt>
 * <dd>The keys one view lists ({@link ViewRequest}): those starting with a prefix, after
 * a key, at most a limit of them, in key order.</dd>
 * </dl>
 */
@NullMarked
package dev.zklock.core.view;

import org.jspecify.annotations.NullMarked;
