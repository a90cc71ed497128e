package dev.zklock.autoconfigure.endpoint;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code zkleaders} endpoint. {@code GET /actuator/zkleaders} lists every leader
 * group under the leadership root path, read from ZooKeeper, so that every instance shows
 * the same groups: each with its leader and its candidates in queue order, whoever they
 * are (zk-lock, Curator's {@code LeaderSelector}, Spring Integration's
 * {@code LeaderInitiator}); then, apart, what this instance joined and whether it leads.
 * {@code GET /actuator/zkleaders/{group}} shows one group. Read-only; with
 * {@code zklock.endpoint.revocation-enabled=true},
 * {@link ZkLeadersRevocationWebExtension} adds {@code DELETE}, which asks a group's
 * leader to hand over.
 *
 * @author zk-lock
 */
@Endpoint(id = "zkleaders")
public class ZkLeadersEndpoint {

	/**
	 * How many groups are listed at most: each costs reads, and the answer must stay
	 * small. Groups come in name order, so every instance lists the same ones.
	 */
	static final int MAX_GROUPS = 1000;

	private final ZkLeadership leadership;

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param leadership this instance's leadership, whose root path is listed
	 * @param registry the lock registry whose client reads ZooKeeper
	 */
	public ZkLeadersEndpoint(ZkLeadership leadership, ZkLockRegistry registry) {
		this.leadership = leadership;
		this.registry = registry;
	}

	/**
	 * List the leader groups under the root path, and this instance's part in them.
	 * @return the groups
	 * @throws Exception if ZooKeeper could not be read within the connection timeout
	 */
	@ReadOperation
	public Leaders leaders() throws Exception {
		List<String> names = groupNames();
		boolean truncated = names.size() > MAX_GROUPS;
		List<Group> groups = new ArrayList<>();
		for (String name : truncated ? names.subList(0, MAX_GROUPS) : names) {
			groups.add(readGroup(name));
		}
		return new Leaders(this.leadership.getRootPath(), groups, truncated, instance());
	}

	/**
	 * Show one leader group.
	 * @param group the group's name
	 * @return the group, with no leader and no candidates if nobody is in it
	 * @throws InvalidLeaderGroupException if the name cannot be a group name
	 * ({@code 400})
	 * @throws Exception if ZooKeeper could not be read within the connection timeout
	 */
	@ReadOperation
	public GroupAndInstance group(@Selector String group) throws Exception {
		InvalidLeaderGroupException.validate(group);
		return new GroupAndInstance(readGroup(group), instanceGroup(group));
	}

	private Group readGroup(String name) throws Exception {
		LeaderGroup group = this.leadership.leaderGroup(name);
		List<GroupMember> members = this.registry.groupMembers(group);
		Leader leader = null;
		List<Candidate> candidates = new ArrayList<>();
		for (GroupMember member : members) {
			if (member.leader()) {
				leader = new Leader(member.participantId(), member.host(), member.epoch(), member.since());
			}
			else {
				candidates.add(new Candidate(member.participantId(), member.host(), member.joined()));
			}
		}
		return new Group(name, group.path(), leader, candidates);
	}

	/**
	 * The children of the root path, sorted; one more than {@link #MAX_GROUPS} at most,
	 * to tell that the list is cut. Read in the background and waited for no longer than
	 * the connection timeout, as the lock registry reads.
	 */
	private List<String> groupNames() throws Exception {
		CuratorFramework client = this.registry.getClient();
		CompletableFuture<List<String>> children = new CompletableFuture<>();
		client.getChildren().inBackground((c, event) -> {
			KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
			if (code == KeeperException.Code.OK) {
				children.complete(event.getChildren());
			}
			else if (code == KeeperException.Code.NONODE) {
				children.complete(List.of());
			}
			else {
				children.completeExceptionally(KeeperException.create(code, event.getPath()));
			}
		}).forPath(this.leadership.getRootPath());
		int timeout = client.getZookeeperClient().getConnectionTimeoutMs();
		List<String> names = new ArrayList<>();
		for (String child : children.get(timeout, TimeUnit.MILLISECONDS)) {
			if (isGroupName(child)) {
				names.add(child);
			}
		}
		names.sort(null);
		return List.copyOf(names.subList(0, Math.min(names.size(), MAX_GROUPS + 1)));
	}

	private static boolean isGroupName(String name) {
		try {
			LeaderGroup.validateName(name);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private Instance instance() {
		List<InstanceGroup> groups = new ArrayList<>();
		for (String name : this.leadership.getGroups()) {
			groups.add(instanceGroup(name));
		}
		return new Instance(participantId(), groups);
	}

	private InstanceGroup instanceGroup(String name) {
		boolean joined = this.leadership.candidate(name) != null;
		LeaderTerm term = this.leadership.currentTerm(name);
		return new InstanceGroup(name, joined, term != null, (term != null) ? term.epoch() : null);
	}

	private String participantId() {
		for (String name : this.leadership.getGroups()) {
			LeaderCandidate candidate = this.leadership.candidate(name);
			if (candidate != null) {
				return candidate.participantId();
			}
		}
		// What the engine writes into each node when it joins a group
		return ManagementFactory.getRuntimeMXBean().getName();
	}

	/**
	 * The leader groups under the root path, and this instance's part in them.
	 *
	 * @param rootPath the leadership root path
	 * @param groups every group under it, in name order, at most {@value #MAX_GROUPS}:
	 * the same on every instance
	 * @param truncated whether there are more groups than listed
	 * @param instance this instance's groups
	 */
	public record Leaders(String rootPath, List<Group> groups, boolean truncated, Instance instance) {
	}

	/**
	 * One leader group, as every instance reads it.
	 *
	 * @param name the group's name
	 * @param path its ZooKeeper path
	 * @param leader its leader, {@code null} if nobody leads
	 * @param candidates the others waiting to lead, in queue order: the first leads next
	 */
	public record Group(String name, String path, @Nullable Leader leader, List<Candidate> candidates) {
	}

	/**
	 * A group's leader.
	 *
	 * @param participantId the id it joined with: {@code pid@host} for zk-lock, the id a
	 * Curator {@code LeaderSelector} was given
	 * @param host the host part of the id
	 * @param epoch the term's epoch, its fencing token
	 * @param since when it began to lead
	 */
	public record Leader(String participantId, String host, long epoch, Instant since) {
	}

	/**
	 * A group's candidate that waits to lead.
	 *
	 * @param participantId the id it joined with
	 * @param host the host part of the id
	 * @param joined when it joined the queue
	 */
	public record Candidate(String participantId, String host, Instant joined) {
	}

	/**
	 * This instance's part in the groups.
	 *
	 * @param participantId the id this instance joins groups with
	 * @param groups the groups it has, in name order
	 */
	public record Instance(String participantId, List<InstanceGroup> groups) {
	}

	/**
	 * This instance's part in one group.
	 *
	 * @param name the group's name
	 * @param joined whether this instance has a candidate in it (false before the
	 * application starts, after it stops, or for a group it does not have)
	 * @param leading whether this instance leads it
	 * @param epoch the epoch of its term, {@code null} if it does not lead
	 */
	public record InstanceGroup(String name, boolean joined, boolean leading, @Nullable Long epoch) {
	}

	/**
	 * One group, and this instance's part in it.
	 *
	 * @param group the group, as every instance reads it
	 * @param instance this instance's part in it
	 */
	public record GroupAndInstance(Group group, InstanceGroup instance) {
	}

}
