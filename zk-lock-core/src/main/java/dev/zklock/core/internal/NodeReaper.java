package dev.zklock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the nodes the engine gives up on are deleted: a released node, the node of
 * an attempt that timed out, or a node whose create may have reached the server when the
 * connection broke. A delete that fails for want of a connection is kept and sent again
 * on every connect, until it succeeds or finds the node gone; it is kept across a lost
 * session too, because the work may belong to a newer session than the one reported lost,
 * and a delete of a node that a dead session took with it costs one {@code NONODE}. Node
 * names carry the attempt's protection id, so a kept delete can never meet another
 * attempt's node. A delete the server throttled is sent again a little later.
 *
 * <p>
 * It follows the connection on its own, and keeps doing so after {@link #close()} until
 * the work it was given is done: a registry closed with a delete still pending must not
 * leave that node to live as long as the session.
 */
public final class NodeReaper implements ConnectionStateListener {

	private static final Logger logger = LoggerFactory.getLogger(NodeReaper.class);

	private final CuratorFramework client;

	private final ZkOps ops;

	/** Work kept for want of a connection; guarded by pendingLock. */
	private final List<Runnable> pending = new ArrayList<>();

	private final ReentrantLock pendingLock = new ReentrantLock();

	/** Deletes not yet confirmed by ZooKeeper, for {@link #awaitConfirmed}. */
	private final Set<CompletableFuture<Void>> unconfirmed = ConcurrentHashMap.newKeySet();

	/** Requests sent whose outcome is not known yet. */
	private final AtomicInteger inFlight = new AtomicInteger();

	private final ScheduledThreadPoolExecutor retries;

	private volatile boolean closing;

	private final AtomicBoolean detached = new AtomicBoolean();

	NodeReaper(CuratorFramework client, ZkOps ops) {
		this.client = client;
		this.ops = ops;
		this.retries = DaemonTimers.idle("zk-lock-reaper");
		client.getConnectionStateListenable().addListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState state) {
		if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
			resend();
		}
	}

	/**
	 * Keep work as if it had been kept for want of a connection, in this order, for tests
	 * in this package.
	 */
	void keepPending(List<Runnable> work) {
		this.pendingLock.lock();
		try {
			this.pending.addAll(work);
		}
		finally {
			this.pendingLock.unlock();
		}
	}

	/**
	 * Take no more work once what was given is done, then stop following the connection.
	 */
	public void close() {
		this.closing = true;
		detachIfDone();
	}

	/**
	 * Delete a node, retrying on reconnect until it is gone or its session is. Returns
	 * once the request is sent: one session's requests are applied in order, so any
	 * request this client sends afterwards, such as the create of this JVM's next node
	 * for the key, is applied after the delete.
	 * @return a future that completes when ZooKeeper confirms the node gone, through the
	 * first try or a retry; exceptionally if the reaper gives up on it
	 */
	public CompletableFuture<Void> delete(String path) {
		CompletableFuture<Void> gone = new CompletableFuture<>();
		this.unconfirmed.add(gone);
		gone.whenComplete((result, ex) -> this.unconfirmed.remove(gone));
		attemptDelete(path, gone);
		return gone;
	}

	private void attemptDelete(String path, CompletableFuture<Void> gone) {
		this.inFlight.incrementAndGet();
		this.ops.delete(path).whenComplete((result, ex) -> {
			if (ex == null) {
				gone.complete(null);
			}
			else {
				retryLater(ex, () -> attemptDelete(path, gone), path, gone);
			}
			done();
		});
	}

	/**
	 * Wait until ZooKeeper has confirmed every delete asked of the reaper before the
	 * call, or the timeout passes.
	 * @return whether all of them were confirmed in time; {@code false} also if the
	 * reaper gave up on one
	 */
	public boolean awaitConfirmed(Duration timeout) throws InterruptedException {
		CompletableFuture<?>[] pendingDeletes = this.unconfirmed.toArray(CompletableFuture<?>[]::new);
		try {
			Futures.await(CompletableFuture.allOf(pendingDeletes), timeout.toNanos());
			return true;
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			return false;
		}
	}

	/**
	 * Take over a create whose outcome the participant no longer waits for: delete the
	 * node if it was created, search for it if the reply was lost.
	 * @param create the create, done or still in flight
	 * @param lockPath the lock path it was made under
	 * @param protectionId the protection id in its name
	 */
	void deleteIfCreated(CompletableFuture<ZkOps.Created> create, String lockPath, String protectionId) {
		this.inFlight.incrementAndGet();
		create.whenComplete((created, ex) -> {
			if (created != null) {
				delete(created.path());
			}
			else if (isUncertain(Futures.unwrap(ex))) {
				sweep(lockPath, protectionId);
			}
			done();
		});
	}

	/**
	 * Delete every child of a lock path whose name carries the given protection id: the
	 * only way to find a node whose create reached the server but whose reply did not
	 * reach us. The server is synced first, in case this connection landed on one that
	 * lags behind.
	 */
	void sweep(String lockPath, String protectionId) {
		this.inFlight.incrementAndGet();
		this.ops.sync(lockPath);
		this.ops.getChildren(lockPath, null).whenComplete((children, ex) -> {
			if (ex == null) {
				for (String child : children) {
					if (NodeNames.hasProtectionId(child, protectionId)) {
						delete(lockPath + "/" + child);
					}
				}
			}
			else if (!(Futures.unwrap(ex) instanceof KeeperException.NoNodeException)) {
				retryLater(ex, () -> sweep(lockPath, protectionId), lockPath, null);
			}
			done();
		});
	}

	/**
	 * Whether a failure leaves open whether the request was applied: the reply was lost
	 * with the connection.
	 */
	static boolean isUncertain(Throwable failure) {
		return failure instanceof KeeperException.ConnectionLossException
				|| failure instanceof KeeperException.OperationTimeoutException
				|| failure instanceof KeeperException.SessionMovedException;
	}

	/**
	 * Send the work kept for want of a connection again. It counts as in flight from the
	 * moment it leaves the pending list, so that a close meanwhile cannot find the reaper
	 * idle.
	 */
	private void resend() {
		List<Runnable> work;
		this.pendingLock.lock();
		try {
			work = new ArrayList<>(this.pending);
			this.pending.clear();
			this.inFlight.addAndGet(work.size());
		}
		finally {
			this.pendingLock.unlock();
		}
		for (Runnable retry : work) {
			try {
				retry.run();
			}
			finally {
				done();
			}
		}
	}

	/**
	 * Keep a failed request to send again, or give up on it and say so.
	 * @param gone the future of the delete to fail if the reaper gives up, if any
	 */
	private void retryLater(Throwable ex, Runnable retry, String path, @Nullable CompletableFuture<Void> gone) {
		Throwable cause = Futures.unwrap(ex);
		if (cause instanceof KeeperException.SessionExpiredException) {
			// The session that sent it is gone: on a new one, the next connect sends it
			// again
			keep(retry, false);
			return;
		}
		if (isUncertain(cause)) {
			// Reconnected before this failure was seen: no connect event will come for it
			keep(retry, this.ops.isConnected());
			return;
		}
		if (cause instanceof KeeperException.ThrottledOpException) {
			keep(retry, true);
			return;
		}
		logger.warn("Could not delete lock node {}: {}", path, cause.toString());
		if (gone != null) {
			gone.completeExceptionally(cause);
		}
	}

	private void keep(Runnable retry, boolean resendSoon) {
		this.pendingLock.lock();
		try {
			this.pending.add(retry);
		}
		finally {
			this.pendingLock.unlock();
		}
		if (resendSoon) {
			try {
				this.retries.schedule(this::resend, 100, TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				// Detached: the reaper was closed and idle, so nothing is pending but
				// this, which the next connect cannot send any more; say so rather than
				// lose it silently
				logger.warn("Lock registry closed with a node delete pending; it is retried no more");
			}
		}
	}

	private void done() {
		this.inFlight.decrementAndGet();
		detachIfDone();
	}

	private void detachIfDone() {
		if (!this.closing || this.inFlight.get() > 0) {
			return;
		}
		this.pendingLock.lock();
		try {
			if (!this.pending.isEmpty()) {
				return;
			}
		}
		finally {
			this.pendingLock.unlock();
		}
		if (this.detached.compareAndSet(false, true)) {
			this.client.getConnectionStateListenable().removeListener(this);
			this.retries.shutdown();
		}
	}

}
