package dev.zklock.integration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} on
 * {@link ZkLockIntegrationLockRegistry}: two initiators on two ZooKeeper sessions, as two
 * JVMs would run them, elect one leader, hand leadership over when the leader stops, and
 * take it from a leader whose session expired.
 */
@Timeout(90)
class LockRegistryLeaderInitiatorTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final ConcurrentLinkedQueue<LockRegistryLeaderInitiator> started = new ConcurrentLinkedQueue<>();

	@AfterEach
	void stop() {
		this.started.forEach(LockRegistryLeaderInitiator::stop);
	}

	private Node start(String name) throws InterruptedException {
		ZkLockRegistry registry = this.zk.newRegistry();
		Node node = new Node(name, registry);
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
				new CountingLockRegistry(new ZkLockIntegrationLockRegistry(registry), node.attempts), node.candidate);
		initiator.setHeartBeatMillis(100);
		initiator.setBusyWaitMillis(50);
		initiator.setLeaderEventPublisher(node.events);
		this.started.add(initiator);
		initiator.start();
		node.initiator = initiator;
		return node;
	}

	@Test
	void oneOfTwoInitiatorsLeadsAndKeepsLeadingAcrossHeartbeats() throws Exception {
		Node a = start("a");
		Node b = start("b");
		eventually().until(() -> a.isLeader() || b.isLeader());
		Node leader = a.isLeader() ? a : b;
		Node follower = (leader == a) ? b : a;
		assertThat(leader.initiator.getContext().isLeader()).isTrue();
		assertThat(this.zk.children("/locks/leader")).isNotEmpty();
		// Many heartbeats re-lock the held lock; none may change who leads
		awaitHeartbeats(leader, 10);
		assertThat(leader.isLeader()).isTrue();
		assertThat(leader.granted).hasValue(1);
		assertThat(leader.revoked).hasValue(0);
		assertThat(follower.isLeader()).isFalse();
		assertThat(follower.granted).hasValue(0);
		assertThat(leader.events.granted).hasValue(1);
	}

	@Test
	void theOtherInitiatorLeadsWhenTheLeaderStops() throws Exception {
		Node a = start("a");
		Node b = start("b");
		eventually().until(() -> a.isLeader() || b.isLeader());
		Node leader = a.isLeader() ? a : b;
		Node follower = (leader == a) ? b : a;
		leader.initiator.stop();
		eventually().untilAsserted(() -> {
			assertThat(follower.isLeader()).isTrue();
			assertThat(leader.isLeader()).isFalse();
		});
		assertThat(leader.revoked).hasValue(1);
		assertThat(follower.granted).hasValue(1);
		assertThat(follower.events.granted).hasValue(1);
		assertThat(leader.events.revoked).hasValue(1);
	}

	@Test
	void aLeaderWhoseSessionExpiredIsRevokedAndLeadershipGrantedAgain() throws Exception {
		Node a = start("a");
		eventually().until(a::isLeader);
		Node b = start("b");
		a.registry.getClient().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
		// The lost lease makes the next heartbeat fail: a must stop believing it leads
		eventually().untilAsserted(() -> assertThat(a.revoked).hasValueGreaterThanOrEqualTo(1));
		// Then one of the two leads again, on a live session
		eventually().untilAsserted(() -> {
			assertThat(a.granted.get() + b.granted.get()).isGreaterThanOrEqualTo(2);
			assertThat(List.of(a.isLeader(), b.isLeader())).containsOnlyOnce(true);
		});
		Node leader = a.isLeader() ? a : b;
		Node follower = (leader == a) ? b : a;
		// And stays the only one
		awaitHeartbeats(leader, 5);
		assertThat(leader.isLeader()).isTrue();
		assertThat(follower.isLeader()).isFalse();
	}

	/**
	 * Wait for a number of heartbeats of a node: each is one attempt to lock.
	 */
	private static void awaitHeartbeats(Node node, int heartbeats) {
		int attempts = node.attempts.get();
		eventually().until(() -> node.attempts.get() >= attempts + heartbeats);
	}

	/**
	 * One JVM stand-in: a registry on its own session, and its candidate.
	 */
	private static final class Node {

		final ZkLockRegistry registry;

		final AtomicInteger granted = new AtomicInteger();

		final AtomicInteger revoked = new AtomicInteger();

		/** Lock attempts: one per heartbeat, leading or not. */
		final AtomicInteger attempts = new AtomicInteger();

		private final AtomicBoolean leader = new AtomicBoolean();

		final RecordingEvents events = new RecordingEvents();

		final AbstractCandidate candidate;

		LockRegistryLeaderInitiator initiator;

		Node(String id, ZkLockRegistry registry) {
			this.registry = registry;
			this.candidate = new AbstractCandidate(id, "leader") {

				@Override
				public void onGranted(Context ctx) {
					Node.this.granted.incrementAndGet();
					Node.this.leader.set(true);
				}

				@Override
				public void onRevoked(Context ctx) {
					Node.this.leader.set(false);
					Node.this.revoked.incrementAndGet();
				}

			};
		}

		boolean isLeader() {
			return this.leader.get();
		}

	}

	/**
	 * Counts the attempts to lock of the locks it hands out.
	 */
	private static final class CountingLockRegistry implements LockRegistry<Lock> {

		private final LockRegistry<? extends Lock> delegate;

		private final AtomicInteger attempts;

		CountingLockRegistry(LockRegistry<? extends Lock> delegate, AtomicInteger attempts) {
			this.delegate = delegate;
			this.attempts = attempts;
		}

		@Override
		public Lock obtain(Object lockKey) {
			Lock lock = this.delegate.obtain(lockKey);
			return new Lock() {

				@Override
				public void lock() {
					lock.lock();
				}

				@Override
				public void lockInterruptibly() throws InterruptedException {
					lock.lockInterruptibly();
				}

				@Override
				public boolean tryLock() {
					CountingLockRegistry.this.attempts.incrementAndGet();
					return lock.tryLock();
				}

				@Override
				public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
					try {
						return lock.tryLock(time, unit);
					}
					finally {
						CountingLockRegistry.this.attempts.incrementAndGet();
					}
				}

				@Override
				public void unlock() {
					lock.unlock();
				}

				@Override
				public Condition newCondition() {
					return lock.newCondition();
				}

			};
		}

	}

	private static final class RecordingEvents implements LeaderEventPublisher {

		final AtomicInteger granted = new AtomicInteger();

		final AtomicInteger revoked = new AtomicInteger();

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
			this.granted.incrementAndGet();
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
			this.revoked.incrementAndGet();
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
		}

	}

}
