package dev.zklock.core.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LeadershipRecorder;
import dev.zklock.core.LeaseState;
import dev.zklock.core.leader.GroupMember;
import dev.zklock.core.leader.LeaderCandidate;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.LeaderTerm;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.leader.TermEnd;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkFaultProxy;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leadership under real connection faults: a leader behind a {@link ZkFaultProxy}, the
 * other candidate on a direct connection, the server of the test's own. A blip well under
 * the session timeout leaves a leading-on term alone and ends a stepping-down one; a cut
 * longer than the session ends the term as lost, the other candidate leads with a greater
 * epoch, and the old one queues behind it without ever believing it leads. Every test
 * waits for outcomes only, within generous bounds: none asserts how long anything takes.
 */
@Timeout(90)
class LeadershipFaultTests {

	private static final LeaderGroup GROUP = LeaderGroup.named("poller");

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	@Test
	void aLeaderThatLeadsOnSurvivesABlipWithItsTermAndNobodyElseLeads() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		long session = sessionOf(client);
		LeadershipRecorder leaderEvents = new LeadershipRecorder();
		LeaderCandidate leader = this.zk.newRegistry(client).joinLeadership(GROUP, OnSuspended.LEAD_ON, leaderEvents);
		LeaderTerm term = leader.awaitLeadership(WAIT);
		assertThat(term).isNotNull();
		LeadershipRecorder otherEvents = new LeadershipRecorder();
		ZkLockRegistry direct = this.zk.newRegistry();
		LeaderCandidate other = direct.joinLeadership(GROUP, otherEvents);
		eventually().until(() -> direct.groupMembers(GROUP).size() == 2);

		proxy.refuse(true);
		eventually().until(() -> term.state() == LeaseState.UNCERTAIN);
		assertThat(leader.currentTerm()).as("leads on while uncertain").isSameAs(term);
		proxy.refuse(false);
		eventually().until(() -> term.state() == LeaseState.HELD);

		assertThat(sessionOf(client)).as("the blip stayed within the session").isEqualTo(session);
		assertThat(leader.currentTerm()).isSameAs(term);
		assertThat(term.end()).isEmpty();
		assertThat(term.isActive()).isTrue();
		assertThat(leaderEvents.events).as("never told revoked").containsExactly("granted " + term.epoch());
		assertThat(otherEvents.events).as("nobody else led").isEmpty();
		assertThat(other.isLeader()).isFalse();
		List<GroupMember> members = direct.groupMembers(GROUP);
		assertThat(members).hasSize(2);
		assertThat(members.get(0).epoch()).as("the same node leads").isEqualTo(term.epoch());
		assertThat(members.get(0).participantId()).isEqualTo(leader.participantId());
	}

	@ParameterizedTest(name = "another candidate queued: {0}")
	@ValueSource(booleans = { false, true })
	void aLeaderThatStepsDownEndsItsTermAtABlipAndTheNextTermHasAGreaterEpoch(boolean anotherQueued) throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		long session = sessionOf(client);
		LeadershipRecorder leaderEvents = new LeadershipRecorder();
		LeaderCandidate leader = this.zk.newRegistry(client).joinLeadership(GROUP, OnSuspended.STEP_DOWN, leaderEvents);
		LeaderTerm term = leader.awaitLeadership(WAIT);
		assertThat(term).isNotNull();
		ZkLockRegistry direct = this.zk.newRegistry();
		LeaderCandidate other = null;
		if (anotherQueued) {
			other = direct.joinLeadership(GROUP, new LeadershipRecorder());
			eventually().until(() -> direct.groupMembers(GROUP).size() == 2);
		}

		proxy.refuse(true);
		eventually().until(() -> term.end().isPresent());
		assertThat(term.end()).contains(TermEnd.SUSPENDED);
		assertThat(term.isActive()).isFalse();
		assertThat(leader.isLeader()).as("stepped down while cut off").isFalse();
		proxy.refuse(false);

		if (anotherQueued) {
			LeaderTerm otherTerm = other.awaitLeadership(WAIT);
			assertThat(otherTerm).as("the other candidate leads").isNotNull();
			assertThat(otherTerm.epoch()).isGreaterThan(term.epoch());
			// The stepped-down candidate queued again, behind the new leader
			eventually().until(() -> direct.groupMembers(GROUP).size() == 2);
			List<GroupMember> members = direct.groupMembers(GROUP);
			assertThat(members.get(0).participantId()).isEqualTo(other.participantId());
			assertThat(members.get(1).participantId()).isEqualTo(leader.participantId());
			assertThat(leader.isLeader()).isFalse();
		}
		else {
			eventually().until(() -> leader.currentTerm() != null);
			LeaderTerm next = leader.currentTerm();
			assertThat(next).isNotSameAs(term);
			assertThat(next.epoch()).isGreaterThan(term.epoch());
			assertThat(direct.groupMembers(GROUP)).singleElement()
				.extracting(GroupMember::epoch)
				.isEqualTo(next.epoch());
		}
		assertThat(sessionOf(client)).as("the blip stayed within the session").isEqualTo(session);
		assertThat(leaderEvents.events).startsWith("granted " + term.epoch(),
				"revoked " + term.epoch() + " " + TermEnd.SUSPENDED);
	}

	/**
	 * Cut off past its session, the old leader's term ends: LOST once Curator gives the
	 * session up, if it leads on; SUSPENDED at once, if it steps down. A leader that
	 * leads on still believes it leads, UNCERTAIN, from the moment the server expires its
	 * session until Curator's own timer runs out: fencing refuses its writes then, as
	 * {@link OnSuspended#LEAD_ON} says, and the samples show it never believes so while
	 * HELD. From the end of its term on, through the reconnection, it never leads beside
	 * the next, and it queues behind it on a new node.
	 */
	@ParameterizedTest
	@EnumSource(OnSuspended.class)
	void aLeaderCutOffPastItsSessionLosesItsTermAndQueuesBehindTheNextWithoutEverLeadingBesideIt(
			OnSuspended onSuspended) throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		long session = sessionOf(client);
		LeadershipRecorder oldEvents = new LeadershipRecorder();
		ZkLockRegistry cutOff = this.zk.newRegistry(client);
		LeaderCandidate old = cutOff.joinLeadership(GROUP, onSuspended, oldEvents);
		LeaderTerm oldTerm = old.awaitLeadership(WAIT);
		assertThat(oldTerm).isNotNull();
		LeadershipRecorder nextEvents = new LeadershipRecorder();
		ZkLockRegistry direct = this.zk.newRegistry();
		LeaderCandidate next = direct.joinLeadership(GROUP, nextEvents);
		eventually().until(() -> direct.groupMembers(GROUP).size() == 2);

		Samples duringCut = new Samples(old, next);
		proxy.refuse(true);
		// The server expires the session, and the next candidate leads; Curator gives the
		// session up once it has been suspended for the session timeout
		eventually().until(() -> duringCut.take() && next.isLeader() && oldTerm.end().isPresent());
		LeaderTerm nextTerm = next.currentTerm();
		assertThat(nextTerm).isNotNull();
		assertThat(nextTerm.epoch()).isGreaterThan(oldTerm.epoch());
		TermEnd expectedEnd = (onSuspended == OnSuspended.LEAD_ON) ? TermEnd.LOST : TermEnd.SUSPENDED;
		assertThat(oldTerm.end()).contains(expectedEnd);
		assertThat(oldTerm.isActive()).isFalse();
		assertThat(duringCut.besideWhileHeld).as("samples in which both led, the old one HELD").hasValue(0);
		if (onSuspended == OnSuspended.STEP_DOWN) {
			assertThat(duringCut.beside).as("samples in which both led").hasValue(0);
		}

		Samples afterEnd = new Samples(old, next);
		proxy.refuse(false);
		eventually().until(() -> {
			afterEnd.take();
			List<GroupMember> members = direct.groupMembers(GROUP);
			return members.size() == 2 && members.get(1).participantId().equals(old.participantId());
		});
		eventually().during(Duration.ofMillis(500)).until(() -> afterEnd.take() && next.currentTerm() == nextTerm);
		assertThat(afterEnd.taken).hasPositiveValue();
		assertThat(afterEnd.beside).as("samples in which both led, from the old term's end on").hasValue(0);
		assertThat(sessionOf(client)).as("on a new session").isNotEqualTo(session);
		List<GroupMember> members = direct.groupMembers(GROUP);
		assertThat(members.get(0).epoch()).isEqualTo(nextTerm.epoch());
		assertThat(members.get(0).participantId()).isEqualTo(next.participantId());
		assertThat(members.get(1).epoch()).as("queued on a new node").isGreaterThan(nextTerm.epoch());
		assertThat(members.get(1).sessionId()).isEqualTo(sessionOf(client));
		assertThat(oldEvents.events).containsExactly("granted " + oldTerm.epoch(),
				"revoked " + oldTerm.epoch() + " " + expectedEnd);
		assertThat(nextEvents.events).containsExactly("granted " + nextTerm.epoch());
	}

	private static long sessionOf(CuratorFramework client) throws Exception {
		return client.getZookeeperClient().getZooKeeper().getSessionId();
	}

	/**
	 * Samples, on the test thread, whether two candidates both believe they lead.
	 */
	static final class Samples {

		final LeaderCandidate old;

		final LeaderCandidate next;

		final AtomicInteger taken = new AtomicInteger();

		final AtomicInteger beside = new AtomicInteger();

		/** Of those beside, the ones in which the old term was HELD, not in doubt. */
		final AtomicInteger besideWhileHeld = new AtomicInteger();

		Samples(LeaderCandidate old, LeaderCandidate next) {
			this.old = old;
			this.next = next;
		}

		/**
		 * Take a sample.
		 * @return {@code true}, to sample within a condition
		 */
		boolean take() {
			this.taken.incrementAndGet();
			LeaderTerm oldTerm = this.old.currentTerm();
			if (oldTerm != null && this.next.isLeader()) {
				this.beside.incrementAndGet();
				if (oldTerm.state() == LeaseState.HELD) {
					this.besideWhileHeld.incrementAndGet();
				}
			}
			return true;
		}

	}

}
