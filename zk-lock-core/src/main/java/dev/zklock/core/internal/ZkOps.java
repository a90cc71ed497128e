package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The few ZooKeeper requests the engine makes, sent asynchronously on the Curator
 * client's current ZooKeeper handle. The engine goes below Curator's foreground API on
 * purpose: Curator retries a broken connection inside one call for longer than a caller's
 * wait, and the engine must hold every wait to its bound and know exactly which nodes it
 * created.
 */
public final class ZkOps {

	private final CuratorFramework client;

	private final byte[] participantData;

	private final List<ACL> acl;

	ZkOps(CuratorFramework client, byte[] participantData, List<ACL> acl) {
		this.client = client;
		this.participantData = participantData;
		this.acl = acl;
	}

	/**
	 * The server path of a namespace-relative path.
	 */
	String serverPath(String path) {
		return ZKPaths.fixForNamespace(this.client.getNamespace(), path);
	}

	public boolean isConnected() {
		return this.client.getZookeeperClient().isConnected();
	}

	/**
	 * The session of the client's current ZooKeeper handle; 0 while it has none yet, or
	 * if the handle cannot be had.
	 */
	public long sessionId() {
		try {
			return zooKeeper().getSessionId();
		}
		catch (Exception ex) {
			return 0;
		}
	}

	/**
	 * Whether the current handle's connection is up as its send thread last saw it.
	 * Curator's {@link #isConnected()} follows the events on the client's event thread,
	 * so it still says connected while that thread is busy and the events that say
	 * otherwise wait behind.
	 */
	boolean isHandleConnected() {
		try {
			return zooKeeper().getState().isConnected();
		}
		catch (Exception ex) {
			return false;
		}
	}

	/**
	 * The session timeout the server granted the current handle, in milliseconds; 0 if
	 * there is none yet.
	 */
	int negotiatedSessionTimeoutMs() {
		try {
			return zooKeeper().getSessionTimeout();
		}
		catch (Exception ex) {
			return 0;
		}
	}

	boolean isClientClosed() {
		return this.client.getState() == CuratorFrameworkState.STOPPED;
	}

	public int connectionTimeoutMs() {
		return this.client.getZookeeperClient().getConnectionTimeoutMs();
	}

	public String connectString() {
		return this.client.getZookeeperClient().getCurrentConnectionString();
	}

	/**
	 * A created node: its namespace-relative path and its stat.
	 */
	record Created(String path, Stat stat) {
	}

	CompletableFuture<Created> create(String path, CreateMode mode) {
		return send(path, (zooKeeper, reply) -> zooKeeper.create(serverPath(path), this.participantData, this.acl, mode,
				(rc, p, ctx, name, stat) -> reply.complete(rc, () -> new Created(withoutNamespace(name), stat)), null));
	}

	/**
	 * Create a container node at a server path (namespace included); completes
	 * exceptionally with {@code NodeExistsException} if it exists.
	 */
	CompletableFuture<Void> createContainer(String serverPath) {
		return send(serverPath, (zooKeeper, reply) -> zooKeeper.create(serverPath, new byte[0], this.acl,
				CreateMode.CONTAINER, (rc, p, ctx, name) -> reply.complete(rc, () -> null), null));
	}

	public CompletableFuture<List<String>> getChildren(String path, @Nullable Watcher watcher) {
		return getChildren(path, watcher, (children) -> {
		});
	}

	/**
	 * List the children, telling {@code onReply} of a successful list on the client's
	 * event thread, before any event that follows the reply: what the list says and what
	 * the watch it arms reports later are seen in order.
	 */
	public CompletableFuture<List<String>> getChildren(String path, @Nullable Watcher watcher,
			Consumer<List<String>> onReply) {
		return send(path,
				(zooKeeper, reply) -> zooKeeper.getChildren(serverPath(path), watcher, (rc, p, ctx, children) -> {
					try {
						if (rc == KeeperException.Code.OK.intValue()) {
							onReply.accept(children);
						}
					}
					finally {
						reply.complete(rc, () -> children);
					}
				}, null));
	}

	/**
	 * What a read of a node returned.
	 *
	 * @param data the node's data
	 * @param stat the node's stat
	 */
	public record NodeData(byte[] data, Stat stat) {
	}

	/**
	 * Read a node through {@code getData}, leaving a watch on it; completes with
	 * {@code null} if the node does not exist, and then leaves no watch (unlike
	 * {@code exists}, which would leave one on a sequential name that never comes back).
	 */
	public CompletableFuture<@Nullable NodeData> getData(String path, @Nullable Watcher watcher) {
		return this.<@Nullable NodeData>send(path,
				(zooKeeper, reply) -> zooKeeper.getData(serverPath(path), watcher,
						(rc, p, ctx, data, stat) -> reply.completeUnless(rc,
								() -> new NodeData((data != null) ? data : new byte[0], stat), () -> null,
								KeeperException.Code.NONODE),
						null));
	}

	/**
	 * Read a node's stat, without its data and without a watch; completes with
	 * {@code null} if the node does not exist.
	 */
	public CompletableFuture<@Nullable Stat> stat(String path) {
		return this.<@Nullable Stat>send(path, (zooKeeper, reply) -> zooKeeper.exists(serverPath(path), false,
				(rc, p, ctx, stat) -> reply.completeUnless(rc, () -> stat, () -> null, KeeperException.Code.NONODE),
				null));
	}

	/**
	 * The data of every node this client makes: {@code pid@host}.
	 */
	byte[] participantData() {
		return this.participantData.clone();
	}

	/**
	 * Write a node's data if its version is still {@code version}; completes with
	 * {@code false} if the node does not exist or has another version (it changed, or
	 * another node of its name replaced it, since its version was read).
	 */
	public CompletableFuture<Boolean> setData(String path, byte[] data, int version) {
		return send(path,
				(zooKeeper, reply) -> zooKeeper.setData(serverPath(path), data, version,
						(rc, p, ctx, stat) -> reply.completeUnless(rc, () -> true, () -> false,
								KeeperException.Code.NONODE, KeeperException.Code.BADVERSION),
						null));
	}

	/**
	 * Bring the server this client talks to up to date with the leader, so that a read
	 * sent after it sees every write the ensemble applied before it. Needed after a
	 * reconnect, which may land on a server that has not yet applied a create this client
	 * sent before.
	 */
	CompletableFuture<Void> sync(String path) {
		return send(path, (zooKeeper, reply) -> zooKeeper.sync(serverPath(path),
				(rc, p, ctx) -> reply.complete(rc, () -> null), null));
	}

	/**
	 * Delete a node; completes normally also when it was already gone.
	 */
	CompletableFuture<Void> delete(String path) {
		return send(path, (zooKeeper, reply) -> zooKeeper.delete(serverPath(path), -1,
				(rc, p, ctx) -> reply.completeUnless(rc, () -> null, () -> null, KeeperException.Code.NONODE), null));
	}

	/**
	 * Send one asynchronous request on the current handle: the one adapter from
	 * ZooKeeper's callbacks to a future. A request that cannot be sent (no handle, a bad
	 * path) completes the future exceptionally, as a refused one does.
	 * @param path the path named by a refusal
	 */
	private <T extends @Nullable Object> CompletableFuture<T> send(String path, Request<T> request) {
		CompletableFuture<T> future = new CompletableFuture<>();
		try {
			request.send(zooKeeper(), new Reply<>(future, path));
		}
		catch (Exception ex) {
			future.completeExceptionally(ex);
		}
		return future;
	}

	/**
	 * One asynchronous request, whose callback completes the reply.
	 */
	@FunctionalInterface
	private interface Request<T extends @Nullable Object> {

		void send(ZooKeeper zooKeeper, Reply<T> reply) throws Exception;

	}

	/**
	 * Completes a request's future from ZooKeeper's result code: {@code OK} with the
	 * reply's value, a code the request takes as an answer with that answer, any other
	 * with ZooKeeper's exception for it.
	 */
	private record Reply<T extends @Nullable Object>(CompletableFuture<T> future, String path) {

		void complete(int rc, Supplier<T> value) {
			completeUnless(rc, value, value);
		}

		/**
		 * Complete as ZooKeeper replied, with {@code answer} for a code in
		 * {@code answered}.
		 */
		void completeUnless(int rc, Supplier<T> value, Supplier<T> answer, KeeperException.Code... answered) {
			KeeperException.Code code = KeeperException.Code.get(rc);
			if (code == KeeperException.Code.OK) {
				this.future.complete(value.get());
			}
			else if (Arrays.asList(answered).contains(code)) {
				this.future.complete(answer.get());
			}
			else {
				this.future.completeExceptionally(KeeperException.create(code, this.path));
			}
		}

	}

	/**
	 * What one read of a multi-read returned: a node's children, or its data and stat;
	 * {@code null} in both if the node does not exist.
	 *
	 * @param children the children, for a {@code getChildren}
	 * @param node the data and stat, for a {@code getData}
	 */
	public record MultiRead(@Nullable List<String> children, @Nullable NodeData node) {
	}

	/**
	 * Send reads in one request, ZooKeeper's multi-read: {@code getChildren} of the paths
	 * in {@code listed}, then {@code getData} of those in {@code read}, no watches. Each
	 * read answers for itself (a multi-read is not atomic): a node that does not exist
	 * gives an empty {@link MultiRead}; any other refusal fails the whole future.
	 * @return one result per path, the listed first, in the order given
	 */
	public CompletableFuture<List<MultiRead>> multiRead(List<String> listed, List<String> read) {
		List<Op> ops = new ArrayList<>(listed.size() + read.size());
		listed.forEach((path) -> ops.add(Op.getChildren(serverPath(path))));
		read.forEach((path) -> ops.add(Op.getData(serverPath(path))));
		String first = !listed.isEmpty() ? listed.get(0) : (!read.isEmpty() ? read.get(0) : "/");
		return send(first, (zooKeeper, reply) -> zooKeeper.multi(ops, (rc, p, ctx, results) -> {
			// A multi-read's code is its first failed read's, its results every read's
			// own
			if (results == null || results.size() != ops.size()) {
				reply.complete((rc != KeeperException.Code.OK.intValue()) ? rc
						: KeeperException.Code.MARSHALLINGERROR.intValue(), List::of);
				return;
			}
			List<MultiRead> reads = new ArrayList<>(results.size());
			for (int i = 0; i < results.size(); i++) {
				OpResult result = results.get(i);
				if (result instanceof OpResult.GetChildrenResult list) {
					reads.add(new MultiRead(list.getChildren(), null));
				}
				else if (result instanceof OpResult.GetDataResult data) {
					byte[] bytes = data.getData();
					reads.add(new MultiRead(null, new NodeData((bytes != null) ? bytes : new byte[0], data.getStat())));
				}
				else {
					int error = ((OpResult.ErrorResult) result).getErr();
					if (error != KeeperException.Code.NONODE.intValue()) {
						String path = (i < listed.size()) ? listed.get(i) : read.get(i - listed.size());
						reply.future()
							.completeExceptionally(KeeperException.create(KeeperException.Code.get(error), path));
						return;
					}
					reads.add(new MultiRead(null, null));
				}
			}
			reply.future().complete(reads);
		}, null));
	}

	/**
	 * A {@code check} of a node's existence, whatever its version, for a multi.
	 */
	Op check(String path) {
		return Op.check(serverPath(path), -1);
	}

	/**
	 * Send a multi once, on the client's current handle if that handle's session is
	 * {@code sessionId}, and wait for its reply. A handle keeps its session for life, so
	 * the multi can only apply in that session. Not Curator's foreground transaction,
	 * which resends after a connection loss.
	 * @return the results, or {@code null} if the current handle has another session (or
	 * none yet): nothing was sent
	 * @throws KeeperException as ZooKeeper reports a failed multi
	 */
	@Nullable List<OpResult> multiInSession(long sessionId, List<Op> ops) throws Exception {
		ZooKeeper zooKeeper = zooKeeper();
		if (zooKeeper.getSessionId() != sessionId) {
			return null;
		}
		return zooKeeper.multi(ops);
	}

	private ZooKeeper zooKeeper() throws Exception {
		return this.client.getZookeeperClient().getZooKeeper();
	}

	String withoutNamespace(String serverPath) {
		String namespace = this.client.getNamespace();
		if (namespace == null || namespace.isEmpty()) {
			return serverPath;
		}
		return serverPath.substring(namespace.length() + 1);
	}

}
