package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the nodes the engine gives up on are deleted: a released lease, the node of an
 * attempt that timed out, or a node whose create may have reached the server when the connection
 * broke. A delete that fails for want of a connection is kept and sent again on reconnect; when
 * the session is lost the pending work is dropped, because ZooKeeper removes a dead session's
 * ephemeral nodes itself.
 */
final class NodeReaper {

	private static final Logger logger = LoggerFactory.getLogger(NodeReaper.class);

	private final ZkOps ops;

	private final List<Runnable> pending = new ArrayList<>();

	private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "zk-lock-reaper");
		thread.setDaemon(true);
		return thread;
	});

	NodeReaper(ZkOps ops) {
		this.ops = ops;
	}

	void close() {
		this.retries.shutdownNow();
	}

	/**
	 * Delete a node, retrying on reconnect until it is gone or its session is.
	 * @return a future that completes when the first try ends, successful or not
	 */
	CompletableFuture<Void> delete(String path) {
		return this.ops.delete(path).handle((result, ex) -> {
			if (ex != null) {
				retryLater(ex, () -> delete(path), path);
			}
			return null;
		});
	}

	/**
	 * Delete every child of a lock path whose name carries the given protection id: the only
	 * way to find a node whose create reached the server but whose reply did not reach us.
	 */
	void sweep(String lockPath, String protectionId) {
		this.ops.getChildren(lockPath, null).whenComplete((children, ex) -> {
			if (ex != null) {
				if (!(unwrap(ex) instanceof KeeperException.NoNodeException)) {
					retryLater(ex, () -> sweep(lockPath, protectionId), lockPath);
				}
				return;
			}
			for (String child : children) {
				if (child.contains(protectionId)) {
					delete(lockPath + "/" + child);
				}
			}
		});
	}

	/**
	 * Send the work kept for want of a connection again.
	 */
	void reconnected() {
		List<Runnable> work;
		synchronized (this.pending) {
			work = new ArrayList<>(this.pending);
			this.pending.clear();
		}
		work.forEach(Runnable::run);
	}

	/**
	 * Drop the kept work: the session that owned those nodes is gone, and so are they.
	 */
	void sessionLost() {
		synchronized (this.pending) {
			this.pending.clear();
		}
	}

	private void retryLater(Throwable ex, Runnable retry, String path) {
		Throwable cause = unwrap(ex);
		if (cause instanceof KeeperException.SessionExpiredException) {
			return;
		}
		if (cause instanceof KeeperException.ConnectionLossException
				|| cause instanceof KeeperException.OperationTimeoutException) {
			synchronized (this.pending) {
				this.pending.add(retry);
			}
			if (this.ops.isConnected() && !this.retries.isShutdown()) {
				// Reconnected before this failure was seen: no reconnect event will come for it
				this.retries.schedule(this::reconnected, 100, TimeUnit.MILLISECONDS);
			}
			return;
		}
		logger.warn("Could not delete lock node {}: {}", path, cause.toString());
	}

	static Throwable unwrap(Throwable ex) {
		while (ex instanceof java.util.concurrent.CompletionException
				|| ex instanceof java.util.concurrent.ExecutionException) {
			if (ex.getCause() == null) {
				break;
			}
			ex = ex.getCause();
		}
		return ex;
	}

}
