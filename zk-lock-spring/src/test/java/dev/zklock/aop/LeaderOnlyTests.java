package dev.zklock.aop;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.LeaderOnly;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.TestThreads;
import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipLostException;
import dev.zklock.core.leader.TermEnd;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.LeaderContext;
import dev.zklock.leadership.LeaderGrantedEvent;
import dev.zklock.leadership.LeaderRevokedEvent;
import dev.zklock.leadership.LeadershipEvent;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @LeaderOnly} across two instances of an application (two contexts on one
 * ZooKeeper): a method runs only on the leader and is skipped elsewhere, as leader work
 * with its context; the events tell both; a leader-only component is started by the
 * leadership, never by the context; a hand-off waits for the running leader method; a
 * lost term interrupts it.
 */
@Timeout(60)
class LeaderOnlyTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void runsOnlyOnTheLeaderWithItsContextAndIsSkippedElsewhere() throws Exception {
		try (AnnotationConfigApplicationContext a = LeaderOnlyContext.start(this.zk, "reports", Jobs.class,
				TypeLevelJobs.class);
				AnnotationConfigApplicationContext b = LeaderOnlyContext.start(this.zk, "reports", Jobs.class,
						TypeLevelJobs.class)) {
			AnnotationConfigApplicationContext leader = awaitLeader("reports", a, b);
			AnnotationConfigApplicationContext follower = (leader == a) ? b : a;
			Jobs leaderJobs = leader.getBean(Jobs.class);
			Jobs followerJobs = follower.getBean(Jobs.class);
			leaderJobs.tick();
			followerJobs.tick();
			assertThat(leaderJobs.probe().ticks).hasValue(1);
			assertThat(followerJobs.probe().ticks).hasValue(0);
			assertThat(leaderJobs.report()).isEqualTo("report");
			assertThat(followerJobs.report()).isNull();
			assertThat(leaderJobs.names()).containsExactly("a");
			assertThat(followerJobs.names()).isEmpty();
			assertThat(followerJobs.maybe()).isEmpty();
			// On a type, every public method
			assertThat(leader.getBean(TypeLevelJobs.class).who()).isEqualTo("the leader");
			assertThat(follower.getBean(TypeLevelJobs.class).who()).isNull();
			assertThat(follower.getBean(TypeLevelJobs.class).toString()).isEqualTo("jobs");
			LeaderTerm term = leader.getBean(ZkLeadership.class).currentTerm("reports");
			assertThat(term).isNotNull();
			assertThat(leaderJobs.probe().group).hasValue("reports");
			assertThat(leaderJobs.probe().epoch).hasValue(term.epoch());
			assertThat(LeaderContext.find()).isNull();
			assertThat(leader.getBean(ZkLeadership.class).runningWork("reports")).isZero();
		}
	}

	@Test
	void groupsAreJoinedAtStartupAndEventsTellTheTerms() throws Exception {
		AnnotationConfigApplicationContext a = LeaderOnlyContext.start(this.zk, "events", Jobs.class, Events.class);
		try (AnnotationConfigApplicationContext b = LeaderOnlyContext.start(this.zk, "events", Jobs.class,
				Events.class)) {
			// Joined at startup, with no call made
			assertThat(a.getBean(ZkLeadership.class).getGroups()).containsExactly("events");
			AnnotationConfigApplicationContext leader = awaitLeader("events", a, b);
			AnnotationConfigApplicationContext follower = (leader == a) ? b : a;
			LeaderTerm term = leader.getBean(ZkLeadership.class).currentTerm("events");
			assertThat(term).isNotNull();
			Events leaderEvents = leader.getBean(Events.class);
			InProcessZooKeeper.eventually().until(() -> !leaderEvents.events.isEmpty());
			LeadershipEvent granted = leaderEvents.events.get(0);
			assertThat(granted).isInstanceOf(LeaderGrantedEvent.class);
			assertThat(granted.getGroup()).isEqualTo("events");
			assertThat(granted.getEpoch()).isEqualTo(term.epoch());
			assertThat(granted.getParticipantId()).isEqualTo(term.participantId()).contains("@");
			Events followerEvents = follower.getBean(Events.class);
			assertThat(followerEvents.events).isEmpty();
			leader.close();
			assertThat(leaderEvents.events).hasSize(2);
			LeaderRevokedEvent revoked = (LeaderRevokedEvent) leaderEvents.events.get(1);
			assertThat(revoked.getEpoch()).isEqualTo(term.epoch());
			assertThat(revoked.getWhy()).isEqualTo(TermEnd.CLOSED);
			InProcessZooKeeper.eventually().until(() -> !followerEvents.events.isEmpty());
			LeadershipEvent next = followerEvents.events.get(0);
			assertThat(next).isInstanceOf(LeaderGrantedEvent.class);
			assertThat(next.getEpoch()).isGreaterThan(term.epoch());
		}
		finally {
			a.close();
		}
	}

	@Test
	void leaderOnlyComponentIsStartedByTheLeadershipNotByTheContext() throws Exception {
		AnnotationConfigApplicationContext a = LeaderOnlyContext.start(this.zk, "consumers", Consumer.class);
		try (AnnotationConfigApplicationContext b = LeaderOnlyContext.start(this.zk, "consumers", Consumer.class)) {
			AnnotationConfigApplicationContext leader = awaitLeader("consumers", a, b);
			AnnotationConfigApplicationContext follower = (leader == a) ? b : a;
			Consumer leading = leader.getBean(Consumer.class);
			Consumer following = follower.getBean(Consumer.class);
			InProcessZooKeeper.eventually().until(leading::isRunning);
			assertThat(leading.probe().starts).hasValue(1);
			// The context asks the proxy, which keeps it from starting the component
			assertThat(following.isAutoStartup()).isFalse();
			assertThat(following.isRunning()).isFalse();
			assertThat(following.probe().starts).hasValue(0);
			follower.start();
			assertThat(following.probe().starts).hasValue(0);
			assertThat(leader.getBean(ZkLeadership.class).getLeaderOnlyComponents("consumers")).hasSize(1);
			// The hand-off stops it, once; the context's own stop does nothing
			leader.close();
			assertThat(leading.isRunning()).isFalse();
			assertThat(leading.probe().starts).hasValue(1);
			assertThat(leading.probe().stops).hasValue(1);
			InProcessZooKeeper.eventually().until(following::isRunning);
			assertThat(following.probe().starts).hasValue(1);
		}
		finally {
			a.close();
		}
	}

	@Test
	void closingTheLeaderWaitsForItsRunningMethodThenTheOtherLeads() throws Exception {
		AnnotationConfigApplicationContext a = LeaderOnlyContext.start(this.zk, "drain", Jobs.class);
		try (AnnotationConfigApplicationContext b = LeaderOnlyContext.start(this.zk, "drain", Jobs.class)) {
			AnnotationConfigApplicationContext leader = awaitLeader("drain", a, b);
			AnnotationConfigApplicationContext follower = (leader == a) ? b : a;
			Jobs jobs = leader.getBean(Jobs.class);
			CompletableFuture<String> running = CompletableFuture.supplyAsync(jobs::blocking, TestThreads.EXECUTOR);
			assertThat(jobs.probe().running.await(20, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Void> closing = CompletableFuture.runAsync(leader::close, TestThreads.EXECUTOR);
			Thread.sleep(500);
			assertThat(closing).isNotDone();
			assertThat(follower.getBean(ZkLeadership.class).isLeader("drain")).isFalse();
			jobs.probe().release.countDown();
			assertThat(running.get(20, TimeUnit.SECONDS)).isEqualTo("released");
			closing.get(20, TimeUnit.SECONDS);
			assertThat(jobs.probe().interrupted).hasValue(false);
			InProcessZooKeeper.eventually().until(() -> follower.getBean(ZkLeadership.class).isLeader("drain"));
		}
		finally {
			a.close();
		}
	}

	@Test
	void aLostTermInterruptsTheRunningMethodWhichEndsWithLeadershipLost() throws Exception {
		assertLossInterruptsLeaderWork("lost", (leader) -> {
			GroupMember member = leader.getBean(ZkLeadership.class).members("lost").get(0);
			assertThat(member.leader()).isTrue();
			CuratorFramework other = this.zk.newClient();
			try {
				other.delete().forPath("/leaders/lost/" + member.node());
			}
			finally {
				other.close();
			}
		});
	}

	@Test
	void aSessionExpiryInterruptsTheRunningMethodWhichEndsWithLeadershipLost() throws Exception {
		assertLossInterruptsLeaderWork("expired",
				(leader) -> leader.getBean(ZkLockRegistry.class)
					.getClient()
					.getZookeeperClient()
					.getZooKeeper()
					.getTestable()
					.injectSessionExpiration());
	}

	private void assertLossInterruptsLeaderWork(String group, Loss loss) throws Exception {
		try (AnnotationConfigApplicationContext a = LeaderOnlyContext.start(this.zk, group, Jobs.class);
				AnnotationConfigApplicationContext b = LeaderOnlyContext.start(this.zk, group, Jobs.class)) {
			AnnotationConfigApplicationContext leader = awaitLeader(group, a, b);
			ZkLeadership leadership = leader.getBean(ZkLeadership.class);
			LeaderTerm term = leadership.currentTerm(group);
			assertThat(term).isNotNull();
			Jobs jobs = leader.getBean(Jobs.class);
			AtomicReference<@Nullable Boolean> interruptedAfterTheCall = new AtomicReference<>();
			CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> {
				try {
					return jobs.untilInterrupted();
				}
				finally {
					interruptedAfterTheCall.set(Thread.currentThread().isInterrupted());
				}
			}, TestThreads.EXECUTOR);
			assertThat(jobs.probe().running.await(20, TimeUnit.SECONDS)).isTrue();
			loss.inflict(leader);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> running.get(20, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOfSatisfying(LeadershipLostException.class, (lost) -> {
					assertThat(lost.getGroup()).isEqualTo(group);
					assertThat(lost.getEpoch()).isEqualTo(term.epoch());
					assertThat(lost).hasMessageContaining("the term's node was lost")
						.hasMessageContaining(Jobs.class.getName() + ".untilInterrupted()");
				});
			assertThat(jobs.probe().interrupted).hasValue(true);
			assertThat(interruptedAfterTheCall).hasValue(false);
			InProcessZooKeeper.eventually().until(() -> leadership.runningWork(group) == 0);
		}
	}

	@FunctionalInterface
	interface Loss {

		void inflict(AnnotationConfigApplicationContext leader) throws Exception;

	}

	/**
	 * Waits until exactly one instance leads the group.
	 */
	private static AnnotationConfigApplicationContext awaitLeader(String group,
			AnnotationConfigApplicationContext... instances) {
		AtomicReference<@Nullable AnnotationConfigApplicationContext> leader = new AtomicReference<>();
		InProcessZooKeeper.eventually().until(() -> {
			List<AnnotationConfigApplicationContext> leaders = java.util.Arrays.stream(instances)
				.filter((instance) -> instance.getBean(ZkLeadership.class).isLeader(group))
				.toList();
			leader.set((leaders.size() == 1) ? leaders.get(0) : null);
			return leaders.size() == 1;
		});
		AnnotationConfigApplicationContext found = leader.get();
		assertThat(found).isNotNull();
		return found;
	}

	static final class Probe {

		final AtomicInteger ticks = new AtomicInteger();

		final AtomicReference<@Nullable String> group = new AtomicReference<>();

		final AtomicReference<@Nullable Long> epoch = new AtomicReference<>();

		final CountDownLatch running = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicReference<@Nullable Boolean> interrupted = new AtomicReference<>();

		final AtomicInteger starts = new AtomicInteger();

		final AtomicInteger stops = new AtomicInteger();

	}

	public static class Jobs {

		private final Probe probe = new Probe();

		public Probe probe() {
			return this.probe;
		}

		@LeaderOnly(group = "${test.group}")
		public void tick() {
			this.probe.ticks.incrementAndGet();
			LeaderContext context = LeaderContext.current();
			this.probe.group.set(context.group());
			this.probe.epoch.set(context.epoch());
		}

		@LeaderOnly(group = "${test.group}")
		public String report() {
			return "report";
		}

		@LeaderOnly(group = "${test.group}")
		public List<String> names() {
			return List.of("a");
		}

		@LeaderOnly(group = "${test.group}")
		public Optional<String> maybe() {
			return Optional.of("a");
		}

		@LeaderOnly(group = "${test.group}")
		public String blocking() {
			this.probe.running.countDown();
			try {
				this.probe.interrupted.set(!this.probe.release.await(30, TimeUnit.SECONDS));
				return "released";
			}
			catch (InterruptedException ex) {
				this.probe.interrupted.set(true);
				return "interrupted";
			}
		}

		/**
		 * Runs until interrupted, and leaves the interrupt set: the call must clear it.
		 */
		@LeaderOnly(group = "${test.group}")
		public String untilInterrupted() {
			this.probe.running.countDown();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (!Thread.currentThread().isInterrupted() && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
			}
			this.probe.interrupted.set(Thread.currentThread().isInterrupted());
			return "ran until interrupted";
		}

	}

	@LeaderOnly(group = "${test.group}")
	public static class TypeLevelJobs {

		public String who() {
			return "the leader";
		}

		@Override
		public String toString() {
			return "jobs";
		}

	}

	public static class Events implements ApplicationListener<LeadershipEvent> {

		final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LeadershipEvent event) {
			this.events.add(event);
		}

	}

	@LeaderOnly(group = "${test.group}")
	public static class Consumer implements SmartLifecycle {

		private final Probe probe = new Probe();

		private volatile boolean running;

		public Probe probe() {
			return this.probe;
		}

		@Override
		public void start() {
			this.probe.starts.incrementAndGet();
			this.running = true;
		}

		@Override
		public void stop() {
			this.probe.stops.incrementAndGet();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

	}

}
