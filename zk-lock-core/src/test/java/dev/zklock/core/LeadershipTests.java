package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.ZkLockTestKit;
import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.LeadershipListener;
import dev.zklock.core.leader.LeadershipLostException;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.leader.TermEnd;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Leadership on a real ZooKeeper server: one candidate of a group leads, its epoch grows
 * from term to term, it hands over on close, yield and revocation, and a lost node ends
 * its term.
 */
@Timeout(60)
class LeadershipTests {

	private static final LeaderGroup GROUP = LeaderGroup.named("poller");

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	/** Where the application's session is expired: the 4 s sessions of before. */
	@RegisterExtension
	static ZkLockTestKit kit = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	@Test
	void oneOfThreeLeadsAndEveryInstanceReadsTheSameQueue() throws Exception {
		List<LeadershipRecorder> recorders = new ArrayList<>();
		List<LeaderCandidate> candidates = new ArrayList<>();
		List<ZkLockRegistry> registries = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			ZkLockRegistry registry = this.zk.newRegistry();
			LeadershipRecorder recorder = new LeadershipRecorder();
			registries.add(registry);
			recorders.add(recorder);
			candidates.add(registry.joinLeadership(GROUP, recorder));
		}
		eventually().until(() -> registries.get(0).groupMembers(GROUP).size() == 3);
		eventually().until(() -> candidates.stream().filter(LeaderCandidate::isLeader).count() == 1);
		LeaderCandidate leader = candidates.stream().filter(LeaderCandidate::isLeader).findFirst().orElseThrow();
		LeaderTerm term = leader.currentTerm();
		assertThat(term).isNotNull();
		List<GroupMember> seen = registries.get(0).groupMembers(GROUP);
		for (ZkLockRegistry registry : registries) {
			assertThat(registry.groupMembers(GROUP)).as("identical on every instance").isEqualTo(seen);
		}
		GroupMember first = seen.get(0);
		assertThat(first.leader()).isTrue();
		assertThat(first.epoch()).isEqualTo(term.epoch());
		assertThat(first.participantId()).isEqualTo(leader.participantId()).contains("@");
		assertThat(seen.subList(1, 3)).noneMatch(GroupMember::leader);
		eventually().until(() -> !registries.get(0).groupMembers(GROUP).get(0).since().isBefore(first.joined()));
		assertThat(leader.participantId()).endsWith("@" + first.host());
	}

	@Test
	void closingTheLeaderHandsOverToTheNextWithAGreaterEpoch() throws Exception {
		LeadershipRecorder firstRecorder = new LeadershipRecorder();
		LeaderCandidate first = this.zk.newRegistry().joinLeadership(GROUP, firstRecorder);
		LeaderTerm firstTerm = first.awaitLeadership(WAIT);
		assertThat(firstTerm).isNotNull();
		LeadershipRecorder secondRecorder = new LeadershipRecorder();
		ZkLockRegistry secondRegistry = this.zk.newRegistry();
		LeaderCandidate second = secondRegistry.joinLeadership(GROUP, secondRecorder);
		eventually().until(() -> secondRegistry.groupMembers(GROUP).size() == 2);
		assertThat(second.isLeader()).isFalse();
		long closed = System.nanoTime();
		assertThat(first.close(WAIT)).isTrue();
		LeaderTerm secondTerm = second.awaitLeadership(WAIT);
		long gapMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
		assertThat(secondTerm).isNotNull();
		assertThat(secondTerm.epoch()).isGreaterThan(firstTerm.epoch());
		assertThat(firstRecorder.events).containsExactly("granted " + firstTerm.epoch(),
				"revoked " + firstTerm.epoch() + " CLOSED");
		assertThat(firstTerm.isActive()).isFalse();
		assertThatExceptionOfType(LeadershipLostException.class).isThrownBy(firstTerm::checkLeading)
			.withMessageContaining("poller")
			.withMessageContaining("CLOSED");
		assertThat(gapMs).as("hand-off gap").isLessThan(WAIT.toMillis());
	}

	@Test
	void aLeaderThatYieldsQueuesBehindTheOthersAndLeadsAgainWithANewEpoch() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		LeaderCandidate alone = registry.joinLeadership(GROUP, new LeadershipRecorder());
		LeaderTerm one = alone.awaitLeadership(WAIT);
		assertThat(one).isNotNull();
		LeaderCandidate other = this.zk.newRegistry().joinLeadership(GROUP, new LeadershipRecorder());
		eventually().until(() -> registry.groupMembers(GROUP).size() == 2);
		alone.yieldLeadership();
		assertThat(other.awaitLeadership(WAIT)).isNotNull();
		assertThat(one.end()).contains(TermEnd.YIELDED);
		eventually().until(() -> registry.groupMembers(GROUP).size() == 2);
		assertThat(registry.groupMembers(GROUP).get(1).participantId()).isEqualTo(alone.participantId());
		other.yieldLeadership();
		LeaderTerm again = alone.awaitLeadership(WAIT);
		assertThat(again).isNotNull();
		assertThat(again.epoch()).isGreaterThan(one.epoch());
	}

	@Test
	void aSoleCandidateThatYieldsLeadsAgainWithANewEpoch() throws Exception {
		LeaderCandidate alone = this.zk.newRegistry().joinLeadership(GROUP, new LeadershipRecorder());
		LeaderTerm one = alone.awaitLeadership(WAIT);
		assertThat(one).isNotNull();
		alone.yieldLeadership();
		eventually().until(() -> alone.currentTerm() != null && alone.currentTerm() != one);
		assertThat(alone.currentTerm().epoch()).isGreaterThan(one.epoch());
	}

	@Test
	void anExpiredLeaderNeverBelievesItLeadsAndTheNextLeadsWithAGreaterEpoch() throws Exception {
		ZkLockRegistry expiring = kit.registry();
		LeadershipRecorder recorder = new LeadershipRecorder();
		LeaderCandidate old = expiring.joinLeadership(GROUP, recorder);
		LeaderTerm oldTerm = old.awaitLeadership(WAIT);
		assertThat(oldTerm).isNotNull();
		AtomicInteger interrupted = new AtomicInteger();
		oldTerm.onEnd((why) -> interrupted.incrementAndGet());
		LeaderCandidate next = kit.newParticipant().joinLeadership(GROUP, new LeadershipRecorder());
		eventually().until(() -> expiring.groupMembers(GROUP).size() == 2);
		kit.expireSession();
		LeaderTerm nextTerm = next.awaitLeadership(WAIT);
		assertThat(nextTerm).isNotNull();
		assertThat(nextTerm.epoch()).isGreaterThan(oldTerm.epoch());
		eventually().until(() -> oldTerm.end().isPresent());
		assertThat(oldTerm.end()).contains(TermEnd.LOST);
		assertThat(oldTerm.state()).isEqualTo(LeaseState.LOST);
		// The callbacks run right after the end is set, on the thread that ended it
		eventually().untilAsserted(() -> assertThat(interrupted).hasValue(1));
		eventually().untilAsserted(() -> assertThat(recorder.events).contains("revoked " + oldTerm.epoch() + " LOST"));
		assertThat(old.isLeader()).as("while the next one leads").isFalse();
		assertThat(next.isLeader()).isTrue();
		// The old one queues again on its new session, behind the new leader; its client
		// may still be reconnecting when first asked
		eventually().ignoreExceptionsInstanceOf(KeeperException.ConnectionLossException.class)
			.until(() -> expiring.groupMembers(GROUP).size() == 2);
		assertThat(old.isLeader()).isFalse();
	}

	@Test
	void aLeaderWhoseNodeAnotherClientDeletesLosesItsTerm() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		LeaderCandidate candidate = registry.joinLeadership(GROUP, new LeadershipRecorder());
		LeaderTerm term = candidate.awaitLeadership(WAIT);
		assertThat(term).isNotNull();
		String node = registry.groupMembers(GROUP).get(0).node();
		this.zk.newClient().delete().forPath(GROUP.path() + "/" + node);
		eventually().until(() -> term.end().isPresent());
		assertThat(term.end()).contains(TermEnd.LOST);
		LeaderTerm next = candidate.awaitLeadership(WAIT);
		assertThat(next).isNotNull();
		assertThat(next.epoch()).isGreaterThan(term.epoch());
	}

	@Test
	void aRevocationRequestHandsOver() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		LeaderCandidate leader = registry.joinLeadership(GROUP, new LeadershipRecorder());
		LeaderTerm term = leader.awaitLeadership(WAIT);
		assertThat(term).isNotNull();
		LeaderCandidate next = this.zk.newRegistry().joinLeadership(GROUP, new LeadershipRecorder());
		eventually().until(() -> registry.groupMembers(GROUP).size() == 2);
		assertThat(this.zk.newRegistry().requestRevocation(GROUP)).hasSize(1);
		assertThat(next.awaitLeadership(WAIT)).isNotNull();
		assertThat(term.end()).contains(TermEnd.REVOKED);
	}

	@Test
	void theEpochGrowsAcrossTheReCreationOfTheGroupsPath() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		LeaderCandidate candidate = registry.joinLeadership(GROUP, new LeadershipRecorder());
		LeaderTerm term = candidate.awaitLeadership(WAIT);
		assertThat(term).isNotNull();
		assertThat(candidate.close(WAIT)).isTrue();
		CuratorFramework raw = this.zk.newClient();
		raw.delete().forPath(GROUP.path());
		raw.create().creatingParentsIfNeeded().forPath(GROUP.path());
		LeaderCandidate again = registry.joinLeadership(GROUP, new LeadershipRecorder());
		LeaderTerm next = again.awaitLeadership(WAIT);
		assertThat(next).isNotNull();
		assertThat(next.epoch()).isGreaterThan(term.epoch());
	}

	@Test
	void aCuratorLeaderSelectorAndACandidateNeverLeadTogether() throws Exception {
		AtomicInteger leading = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger curatorTerms = new AtomicInteger();
		CountDownLatch curatorLed = new CountDownLatch(3);
		LeaderSelector selector = new LeaderSelector(this.zk.newClient(), GROUP.path(),
				new LeaderSelectorListenerAdapter() {
					@Override
					public void takeLeadership(CuratorFramework client) throws Exception {
						if (leading.incrementAndGet() != 1) {
							overlaps.incrementAndGet();
						}
						curatorTerms.incrementAndGet();
						Thread.sleep(50);
						leading.decrementAndGet();
						curatorLed.countDown();
					}
				});
		selector.setId("curator-selector");
		selector.autoRequeue();
		AtomicInteger ourTerms = new AtomicInteger();
		LeadershipListener ours = new LeadershipListener() {
			@Override
			public void leadershipGranted(LeaderTerm term) {
				if (leading.incrementAndGet() != 1) {
					overlaps.incrementAndGet();
				}
				ourTerms.incrementAndGet();
			}

			@Override
			public void leadershipRevoked(LeaderTerm term, TermEnd why) {
				leading.decrementAndGet();
			}
		};
		ZkLockRegistry registry = this.zk.newRegistry();
		LeaderCandidate candidate = registry.joinLeadership(GROUP, ours);
		assertThat(candidate.awaitLeadership(WAIT)).isNotNull();
		selector.start();
		try {
			eventually().until(() -> registry.groupMembers(GROUP).size() == 2);
			assertThat(registry.groupMembers(GROUP).get(1).participantId()).isEqualTo("curator-selector");
			assertThat(selector.getLeader().getId()).isEqualTo(candidate.participantId());
			for (int i = 0; i < 3; i++) {
				int before = curatorTerms.get();
				candidate.yieldLeadership();
				eventually().until(() -> curatorTerms.get() > before && candidate.isLeader());
			}
			assertThat(curatorLed.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(overlaps).hasValue(0);
			assertThat(ourTerms.get()).isGreaterThanOrEqualTo(4);
		}
		finally {
			selector.close();
		}
	}

	@Test
	void aLeaderThatStepsDownWhenSuspendedEndsItsTermAtTheFirstBlip() throws Exception {
		// Told through the lease state, as the session tracker tells every hold
		ZkLockRegistry registry = this.zk.newRegistry();
		LeadershipRecorder recorder = new LeadershipRecorder();
		LeaderCandidate candidate = registry.joinLeadership(GROUP, OnSuspended.STEP_DOWN, recorder);
		LeaderTerm term = candidate.awaitLeadership(WAIT);
		assertThat(term).isNotNull();
		((dev.zklock.core.ZkLockListener) candidate).leaseStateChanged(GROUP.name(), GROUP.path(),
				LeaseState.UNCERTAIN);
		assertThat(term.end()).contains(TermEnd.SUSPENDED);
		LeaderTerm next = candidate.awaitLeadership(WAIT);
		assertThat(next).isNotNull();
		assertThat(next.epoch()).isGreaterThan(term.epoch());
	}

	@Test
	void badGroupsAndASecondCandidateAreRefusedAndWriteNothing() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> LeaderGroup.named(""))
			.withMessageContaining("Leader group name must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> LeaderGroup.named("a/b"))
			.withMessageContaining("Leader group name 'a/b' contains '/'");
		assertThatIllegalArgumentException().isThrownBy(() -> LeaderGroup.named("g").under("leaders"))
			.withMessageContaining("'leaders'");
		ZkLockRegistry registry = this.zk.newRegistry();
		assertThatIllegalArgumentException().isThrownBy(
				() -> registry.joinLeadership(LeaderGroup.named("g").under("/locks/leaders"), new LeadershipRecorder()))
			.withMessageContaining("'/locks/leaders' must be apart from the lock root path '/locks'");
		LeaderCandidate candidate = registry.joinLeadership(GROUP, new LeadershipRecorder());
		assertThatIllegalStateException().isThrownBy(() -> registry.joinLeadership(GROUP, new LeadershipRecorder()))
			.withMessageContaining("already has a candidate in leader group 'poller'");
		assertThat(candidate.awaitLeadership(WAIT)).isNotNull();
		assertThat(this.zk.children("/locks")).isEmpty();
		assertThat(registry.localLocks()).as("a term is no lock").isEmpty();
		assertThat(registry.heldCount()).isZero();
		assertThat(registry.candidates()).containsExactly(candidate);
		candidate.close();
		assertThat(registry.candidates()).isEmpty();
		assertThat(this.zk.children(GROUP.path())).isEmpty();
	}

}
