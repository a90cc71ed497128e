package dev.zklock.leadership;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * This instance's leadership of its groups: joins every group when the application starts
 * (as a {@link SmartLifecycle}), admits leader work only while a term goes on
 * ({@link #startWork}), starts and stops each group's leader-only components with its
 * terms, publishes {@link LeaderGrantedEvent} and {@link LeaderRevokedEvent}, and hands
 * every group over when the application stops: new leader work is refused, the components
 * stop, the running work is waited for up to the {@linkplain #setHandOffTimeout hand-off
 * timeout}, then the node is deleted and the next candidate leads.
 *
 * <p>
 * Groups come from {@code @LeaderOnly} declarations, from configuration, and from
 * {@link #addGroup}. Thread safe.
 *
 * @author zk-lock
 */
public class ZkLeadership implements SmartLifecycle, ApplicationEventPublisherAware {

	/**
	 * The lifecycle phase: stopped before Spring's task executors and schedulers
	 * ({@link ExecutorConfigurationSupport#DEFAULT_PHASE}), so that a scheduled leader
	 * method that runs is drained here, and the next instance leads while this one still
	 * shuts down; after a web server's graceful shutdown; started, so joined, after them.
	 */
	public static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE + 1024;

	/**
	 * How long a hand-off waits for running leader work unless told otherwise.
	 */
	public static final Duration DEFAULT_HAND_OFF_TIMEOUT = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(ZkLeadership.class);

	private final ZkLockRegistry registry;

	private final Map<String, GroupLeadership> groups = new ConcurrentHashMap<>();

	private String rootPath = LeaderGroup.DEFAULT_ROOT_PATH;

	private OnSuspended onSuspended = OnSuspended.LEAD_ON;

	private Duration handOffTimeout = DEFAULT_HAND_OFF_TIMEOUT;

	private @Nullable ApplicationEventPublisher publisher;

	private volatile boolean running;

	/**
	 * Create the leadership of a registry's client.
	 * @param registry the registry whose client the candidates use
	 */
	public ZkLeadership(ZkLockRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	/**
	 * Set the path under which the groups live ({@value LeaderGroup#DEFAULT_ROOT_PATH} by
	 * default). Before the application starts.
	 * @param rootPath the root path
	 * @throws IllegalArgumentException if it is not a valid root path
	 */
	public void setRootPath(String rootPath) {
		LeaderGroup.named("check").under(rootPath);
		this.rootPath = rootPath;
	}

	/**
	 * Return the path under which the groups live.
	 * @return the root path
	 */
	public String getRootPath() {
		return this.rootPath;
	}

	/**
	 * Set what a leader does while its connection is suspended
	 * ({@link OnSuspended#LEAD_ON} by default). Before the application starts.
	 * @param onSuspended lead on until the session is lost, or step down at once
	 */
	public void setOnSuspended(OnSuspended onSuspended) {
		this.onSuspended = Objects.requireNonNull(onSuspended, "onSuspended must not be null");
	}

	/**
	 * Return what a leader does while its connection is suspended.
	 * @return the policy
	 */
	public OnSuspended getOnSuspended() {
		return this.onSuspended;
	}

	/**
	 * Set how long a hand-off waits for leader work that runs, and for leader-only
	 * components to stop, before it interrupts the work and gives the node up (30 seconds
	 * by default).
	 * @param handOffTimeout the timeout, zero or positive
	 */
	public void setHandOffTimeout(Duration handOffTimeout) {
		if (handOffTimeout.isNegative()) {
			throw new IllegalArgumentException("Hand-off timeout must not be negative, but was " + handOffTimeout);
		}
		this.handOffTimeout = handOffTimeout;
	}

	/**
	 * Return how long a hand-off waits for leader work.
	 * @return the timeout
	 */
	public Duration getHandOffTimeout() {
		return this.handOffTimeout;
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	/**
	 * Add a group to join: when the application starts, or at once if it runs. Adding a
	 * group twice is a no-op.
	 * @param group the group's name
	 * @throws IllegalArgumentException if the name cannot be a group name
	 */
	public void addGroup(String group) {
		LeaderGroup.validateName(group);
		GroupLeadership added = new GroupLeadership(group, this);
		if (this.groups.putIfAbsent(group, added) == null && this.running) {
			join(added);
		}
	}

	/**
	 * Start {@code component} whenever this instance begins to lead {@code group}, and
	 * stop it when the term ends; the group is added if need be. The component should not
	 * start with the application itself.
	 * @param group the group's name
	 * @param component the leader-only component
	 */
	public void addLeaderOnlyComponent(String group, Lifecycle component) {
		addGroup(group);
		groupOrThrow(group).addComponent(component);
	}

	/**
	 * Tell {@code listener} when this instance begins and ends a term of {@code group},
	 * on the candidate's thread (see {@link LeadershipListener}); the group is added if
	 * need be.
	 * @param group the group's name
	 * @param listener the listener
	 */
	public void addListener(String group, LeadershipListener listener) {
		addGroup(group);
		groupOrThrow(group).addListener(listener);
	}

	/**
	 * Return the groups of this instance, by name.
	 * @return the group names, sorted
	 */
	public Set<String> getGroups() {
		return new TreeSet<>(this.groups.keySet());
	}

	/**
	 * Return the leader-only components of a group.
	 * @param group the group's name
	 * @return the components, in the order they start
	 */
	public List<Lifecycle> getLeaderOnlyComponents(String group) {
		return groupOrThrow(group).components();
	}

	/**
	 * Return the group with the configured root path.
	 * @param group the group's name
	 * @return the group
	 */
	public LeaderGroup leaderGroup(String group) {
		return LeaderGroup.named(group).under(this.rootPath);
	}

	/**
	 * Return whether this instance leads a group now.
	 * @param group the group's name
	 * @return whether it leads; {@code false} for a group it has not joined
	 */
	public boolean isLeader(String group) {
		return currentTerm(group) != null;
	}

	/**
	 * Return this instance's current term of a group.
	 * @param group the group's name
	 * @return the term that goes on, or {@code null} if it does not lead
	 */
	public @Nullable LeaderTerm currentTerm(String group) {
		GroupLeadership found = this.groups.get(group);
		LeaderCandidate candidate = (found != null) ? found.candidate() : null;
		return (candidate != null) ? candidate.currentTerm() : null;
	}

	/**
	 * Return this instance's candidate in a group.
	 * @param group the group's name
	 * @return the candidate, or {@code null} before the application starts or if the
	 * group is not joined
	 */
	public @Nullable LeaderCandidate candidate(String group) {
		GroupLeadership found = this.groups.get(group);
		return (found != null) ? found.candidate() : null;
	}

	/**
	 * Step down from a group if leading (see {@link LeaderCandidate#yieldLeadership()}).
	 * @param group the group's name
	 */
	public void yieldLeadership(String group) {
		LeaderCandidate candidate = candidate(group);
		if (candidate != null) {
			candidate.yieldLeadership();
		}
	}

	/**
	 * Return the members of a group across all instances, as every instance reads them.
	 * @param group the group's name
	 * @return the members in queue order, the leader first
	 * @throws Exception if ZooKeeper could not be read
	 */
	public List<GroupMember> members(String group) throws Exception {
		return this.registry.groupMembers(leaderGroup(group));
	}

	/**
	 * Return how many calls of leader work of a group run now.
	 * @param group the group's name
	 * @return the number of calls
	 */
	public int runningWork(String group) {
		GroupLeadership found = this.groups.get(group);
		return (found != null) ? found.runningWork() : 0;
	}

	/**
	 * Return what this instance's leadership of a group has done since it started.
	 * @param group the group's name
	 * @return the figures
	 * @throws IllegalStateException if the group was never added
	 */
	public LeadershipStatistics statistics(String group) {
		return groupOrThrow(group).statistics();
	}

	/**
	 * Admit leader work of a group on the current thread: only while this instance leads
	 * it. The work is interrupted if the term's node is lost or in doubt, and waited for
	 * by a hand-off. Use it as {@code @LeaderOnly} does:
	 *
	 * <pre class="code">
	 * LeaderWork work = leadership.startWork("billing");
	 * if (work != null) {
	 *     try {
	 *         invoiceDueOrders();
	 *     }
	 *     finally {
	 *         work.close();
	 *     }
	 * }
	 * </pre>
	 * @param group the group's name
	 * @return the open work, or {@code null} if this instance does not lead the group
	 * @throws IllegalStateException if the group was never added
	 */
	public @Nullable LeaderWork startWork(String group) {
		return groupOrThrow(group).startWork();
	}

	/**
	 * Join every group.
	 */
	@Override
	public void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.groups.values().forEach(this::join);
	}

	/**
	 * Leave every group at once, each handing over: waits for the slowest.
	 */
	@Override
	public void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		List<CompletableFuture<Void>> leaving = new ArrayList<>();
		for (GroupLeadership group : this.groups.values()) {
			LeaderCandidate candidate = group.candidate();
			if (candidate != null) {
				// A thread each: the common pool may have one worker, and each hand-off
				// may
				// wait up to the timeout for its leader work, so they must wait together
				leaving.add(CompletableFuture.runAsync(() -> leave(group, candidate), (task) -> {
					Thread thread = new Thread(task, "zk-lock-hand-off-" + group.name());
					thread.setDaemon(true);
					thread.start();
				}));
			}
		}
		try {
			CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new))
				.get(this.handOffTimeout.toMillis() + 10_000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			logger.warn("Not every leader group was handed over in time", ex);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private void join(GroupLeadership group) {
		group.joined(this.registry.joinLeadership(leaderGroup(group.name()), this.onSuspended, group));
	}

	private void leave(GroupLeadership group, LeaderCandidate candidate) {
		try {
			if (!candidate.close(this.handOffTimeout.plusSeconds(5))) {
				logger.warn("Leader group '" + group.name() + "' was not handed over within "
						+ this.handOffTimeout.plusSeconds(5));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		group.joined(null);
	}

	private GroupLeadership groupOrThrow(String group) {
		GroupLeadership found = this.groups.get(group);
		if (found == null) {
			throw new IllegalStateException("Leader group '" + group + "' was never added to this application's "
					+ "leadership: declare it with @LeaderOnly, in zklock.leadership.groups, or through addGroup");
		}
		return found;
	}

	void publish(ApplicationEvent event) {
		ApplicationEventPublisher target = this.publisher;
		if (target != null) {
			try {
				target.publishEvent(event);
			}
			catch (RuntimeException ex) {
				logger.error("A listener of " + event + " failed", ex);
			}
		}
	}

}
