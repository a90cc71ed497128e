package dev.zklock.autoconfigure.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.view.ClusterView;
import dev.zklock.core.view.GroupView;
import dev.zklock.core.view.InstanceView;
import dev.zklock.core.view.KeyView;
import dev.zklock.core.view.NodeView;
import dev.zklock.core.view.ViewOptions;
import dev.zklock.core.view.ViewRequest;
import dev.zklock.core.view.ViewTooLargeException;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;

/**
 * The {@code zkcluster} endpoint: the whole cluster's locks in one view.
 * {@code GET /actuator/zkcluster} lists every key under the lock root path that someone
 * holds or waits for, in any JVM (zk-lock's or a plain Curator recipe's): the holder
 * (participant, host, thread, since, fencing token, lease state as its instance reports
 * it), the queue in order with how long each has waited, the holds their instances still
 * report though ZooKeeper has dropped them, every reporting instance's connection state,
 * and every leader group. Query parameters: {@code prefix} (keys that start with it),
 * {@code after} (the key the previous page ended with, its {@code nextAfter}) and
 * {@code limit} (1 to 1000, 200 by default). {@code GET /actuator/zkcluster/page} is a
 * live page of the same view, which refreshes itself. Web only, off by default
 * ({@code zklock.view.enabled}): it shows key, host and thread names.
 *
 * @author zk-lock
 */
@WebEndpoint(id = "zkcluster")
public class ZkClusterEndpoint {

	/** The name of the page's selector. */
	public static final String PAGE = "page";

	private static final String PAGE_RESOURCE = "dev/zklock/autoconfigure/endpoint/zkcluster.html";

	private static final int STATUS_UNAVAILABLE = 503;

	private final ZkLockRegistry registry;

	private final ViewOptions options;

	private final boolean revocationEnabled;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 * @param options where the reports and leader groups are, and the view's bounds
	 * @param revocationEnabled whether the page offers to revoke a key's lock (through
	 * {@code DELETE /actuator/zkcluster/{key}}, present only then)
	 */
	public ZkClusterEndpoint(ZkLockRegistry registry, ViewOptions options, boolean revocationEnabled) {
		this.registry = registry;
		this.options = options;
		this.revocationEnabled = revocationEnabled;
	}

	/**
	 * Read the cluster view.
	 * @param prefix what the keys start with, all keys if {@code null}
	 * @param after the key of the previous page's {@code nextAfter}, {@code null} for the
	 * first page
	 * @param limit the most keys listed, 200 if {@code null}
	 * @return the view ({@code 200}), or why ZooKeeper could not be read ({@code 503})
	 * @throws InvalidViewRequestException if a parameter is invalid, or the root path has
	 * more keys than {@code zklock.view.max-keys} ({@code 400}); nothing is listed
	 * @throws Exception if ZooKeeper refused the read
	 */
	@ReadOperation
	public WebEndpointResponse<Object> view(@Nullable String prefix, @Nullable String after, @Nullable Integer limit)
			throws Exception {
		ViewRequest request;
		try {
			request = new ViewRequest((prefix != null) ? prefix : "",
					(after != null && !after.isEmpty()) ? after : null,
					(limit != null) ? limit : ViewRequest.DEFAULT_LIMIT);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidViewRequestException(String.valueOf(ex.getMessage()));
		}
		try {
			ClusterView view = this.registry.clusterView(request, this.options);
			return new WebEndpointResponse<>(Cluster.of(view, request.prefix(), this.revocationEnabled));
		}
		catch (ViewTooLargeException ex) {
			throw new InvalidViewRequestException(String.valueOf(ex.getMessage()));
		}
		catch (KeeperException.ConnectionLossException | TimeoutException ex) {
			// The page shows this, and tries again
			return new WebEndpointResponse<>(new Unavailable(String.valueOf(ex.getMessage())), STATUS_UNAVAILABLE);
		}
	}

	/**
	 * The live page: plain HTML, CSS and JavaScript shipped in this jar, which reads
	 * {@code GET /actuator/zkcluster} twice a second.
	 * @param name {@value #PAGE}
	 * @return the page ({@code 200}), or {@code 404} for another name
	 */
	@ReadOperation(produces = "text/html;charset=UTF-8")
	public WebEndpointResponse<Resource> page(@Selector String name) {
		if (!PAGE.equals(name)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(
				new ClassPathResource(PAGE_RESOURCE, ZkClusterEndpoint.class.getClassLoader()));
	}

	/**
	 * Why the view could not be read.
	 *
	 * @param message the reason, naming the connection's state
	 */
	public record Unavailable(String message) {
	}

	/**
	 * The cluster view, as the endpoint answers it.
	 *
	 * @param rootPath the lock root path
	 * @param readAt when the read began
	 * @param readMillis how long the read took
	 * @param keysUnderRoot how many keys the root path has, listed or not
	 * @param prefix the prefix asked for
	 * @param nextAfter the {@code after} of the next page, {@code null} if none
	 * @param revocationEnabled whether {@code DELETE /actuator/zkcluster/{key}} is
	 * offered
	 * @param instances the reporting instances, the one that answers first
	 * @param keys the keys of this page that someone holds or waits for
	 * @param groups the leader groups
	 */
	public record Cluster(String rootPath, Instant readAt, long readMillis, int keysUnderRoot, String prefix,
			@Nullable String nextAfter, boolean revocationEnabled, List<Instance> instances, List<Key> keys,
			List<Group> groups) {

		static Cluster of(ClusterView view, String prefix, boolean revocationEnabled) {
			return new Cluster(view.rootPath(), view.readAt(), view.readTime().toMillis(), view.keysUnderRoot(), prefix,
					view.nextAfter(), revocationEnabled, view.instances().stream().map(Instance::of).toList(),
					view.keys().stream().map(Key::of).toList(), view.groups().stream().map(Group::of).toList());
		}

	}

	/**
	 * One instance, as it reports itself.
	 *
	 * @param participantId its participant id, {@code pid@host}
	 * @param host its host
	 * @param sessionId its ZooKeeper session, in hexadecimal
	 * @param state its connection state, {@code null} before its first event
	 * @param stateSince since when
	 * @param reportedAt when it last reported, by ZooKeeper's clock
	 * @param self whether it is the instance that answers
	 * @param silent whether it stopped reporting while others did not: its holds are in
	 * doubt
	 * @param holds how many holds it reports
	 * @param waiting how many of its calls wait
	 */
	public record Instance(String participantId, String host, String sessionId, @Nullable String state,
			Instant stateSince, Instant reportedAt, boolean self, boolean silent, int holds, int waiting) {

		static Instance of(InstanceView view) {
			return new Instance(view.participantId(), view.host(), Long.toHexString(view.sessionId()),
					(view.state() != null) ? view.state().name() : null, view.stateSince(), view.reportedAt(),
					view.self(), view.silent(), view.holds(), view.waiting());
		}

	}

	/**
	 * One key.
	 *
	 * @param key the key
	 * @param path its ZooKeeper path
	 * @param kind its recipe
	 * @param holders the nodes that hold it
	 * @param waiters the nodes that wait, in queue order
	 * @param lost holds their instances still report, which ZooKeeper no longer shows
	 * @param unlisted nodes beyond those listed
	 * @param inDoubt whether a hold is {@code UNCERTAIN} or {@code LOST}
	 */
	public record Key(String key, String path, LockKind kind, List<Node> holders, List<Node> waiters, List<Node> lost,
			int unlisted, boolean inDoubt) {

		static Key of(KeyView view) {
			boolean inDoubt = !view.lost().isEmpty() || view.holders()
				.stream()
				.anyMatch((node) -> node.leaseState() == LeaseState.UNCERTAIN || node.leaseState() == LeaseState.LOST);
			return new Key(view.key(), view.path(), view.kind(), view.holders().stream().map(Node::of).toList(),
					view.waiters().stream().map(Node::of).toList(), view.lost().stream().map(Node::of).toList(),
					view.unlisted(), inDoubt);
		}

	}

	/**
	 * One leader group.
	 *
	 * @param group its name
	 * @param path its ZooKeeper path
	 * @param members its nodes in queue order, the first leading
	 */
	public record Group(String group, String path, List<Node> members) {

		static Group of(GroupView view) {
			return new Group(view.group(), view.path(), view.members().stream().map(Node::of).toList());
		}

	}

	/**
	 * One lock node.
	 *
	 * @param node its name
	 * @param mode {@code EXCLUSIVE}, {@code READ}, {@code WRITE} or {@code SEMAPHORE}
	 * @param sessionId its session, in hexadecimal
	 * @param owner its data: {@code pid@host} for zk-lock, the client's address for
	 * Curator
	 * @param host the host part of the owner
	 * @param fencingToken its creation zxid
	 * @param queuedAt when it was made
	 * @param waitedMillis how long it has waited, for a waiter
	 * @param thread the thread holding through it, as reported
	 * @param heldSince since when it is held, as reported
	 * @param leaseState its lease state, as reported
	 * @param lingering whether its instance keeps it with nobody holding
	 * @param localWaiters its instance's calls waiting behind it, as reported
	 * @param reportedBy the instance that reports it, {@code null} if none
	 */
	public record Node(String node, LocalWaiter.Mode mode, String sessionId, String owner, String host,
			long fencingToken, Instant queuedAt, long waitedMillis, @Nullable String thread,
			@Nullable Instant heldSince, @Nullable LeaseState leaseState, boolean lingering,
			List<LocalWaiter> localWaiters, @Nullable String reportedBy) {

		static Node of(NodeView view) {
			return new Node(view.node(), view.mode(), Long.toHexString(view.sessionId()), view.owner(), view.host(),
					view.fencingToken(), view.queuedAt(), view.waited().toMillis(), view.thread(), view.heldSince(),
					view.leaseState(), view.lingering(), view.localWaiters(), view.reportedBy());
		}

	}

}
