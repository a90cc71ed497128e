package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A key expression that yields a collection or an array locks every key: in one global
 * order, under one wait, all or nothing.
 */
@Timeout(90)
class MultiKeyLockingTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

	@AfterEach
	void close() {
		this.contexts.forEach(AnnotationConfigApplicationContext::close);
	}

	private Transfers start() throws Exception {
		AnnotationConfigApplicationContext context = LockedContext.start(this.zk,
				(c) -> c.registerBean(Transfers.class));
		this.contexts.add(context);
		return context.getBean(Transfers.class);
	}

	@Test
	void inlineListLocksEveryKey() throws Exception {
		Transfers transfers = start();
		assertThat(transfers.inline("a", "b")).containsExactly("account:a", "account:b");
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/account:a")).isEmpty());
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/account:b")).isEmpty());
	}

	@Test
	void collectionAndArrayArgumentsLockEveryKeyOnceEach() throws Exception {
		Transfers transfers = start();
		assertThat(transfers.collection(List.of("x", "y", "x"))).containsExactly("x", "y");
		assertThat(transfers.array(new String[] { "z", "y" })).containsExactly("y", "z");
	}

	@Test
	void emptyCollectionOrNullKeyFailTheCall() throws Exception {
		Transfers transfers = start();
		assertThatIllegalArgumentException().isThrownBy(() -> transfers.collection(List.of()))
			.withMessageContaining("\"#keys\" on " + Transfers.class.getName() + ".collection(List)")
			.withMessageContaining("evaluated to an empty collection");
		List<String> withNull = new ArrayList<>();
		withNull.add("x");
		withNull.add(null);
		assertThatIllegalArgumentException().isThrownBy(() -> transfers.collection(withNull))
			.withMessageContaining("evaluated to null");
		assertThat(transfers.calls()).hasValue(0);
	}

	@Test
	void moreKeysThanOneCallMayLockFailTheCallBeforeAnyRequest() throws Exception {
		Transfers transfers = start();
		List<String> before = this.zk.children("/");
		assertThat(this.zk.children("/locks")).isEmpty();
		List<String> keys = IntStream.range(0, 10_000).mapToObj((i) -> "k" + i).toList();
		assertThatIllegalArgumentException().isThrownBy(() -> transfers.collection(keys))
			.withMessage("@DistributedLock key expression \"#keys\" on " + Transfers.class.getName()
					+ ".collection(List) evaluated to 10000 distinct keys, but one call may lock at most 64 "
					+ "(zklock.lock.max-keys-per-call); nothing was locked");
		assertThat(transfers.calls()).hasValue(0);
		assertThat(this.zk.children("/")).isEqualTo(before);
		assertThat(this.zk.children("/locks")).isEmpty();
		// 64, the bound, are locked
		assertThat(transfers.collection(keys.subList(0, 64))).isEmpty();
		assertThat(transfers.calls()).hasValue(1);
	}

	@Test
	void aKeyThatCannotBeTakenReleasesThoseAlreadyTaken() throws Exception {
		Transfers transfers = start();
		ZkLockRegistry otherJvm = this.zk.newRegistry();
		ZkLock held = otherJvm.obtain("account:b");
		held.lock();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> transfers.quick("a", "b"))
				.withMessageContaining("'account:b'");
			// account:a was taken first and given back: nothing of ours is left
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/account:a")).isEmpty());
			eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/account:b")).hasSize(1));
			assertThat(transfers.calls()).hasValue(0);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void overlappingSetsInOppositeOrderNeverDeadlockNorOverlap() throws Exception {
		// Two applications, each its own ZooKeeper session, as two JVMs
		List<Transfers> jvms = List.of(start(), start());
		int[] balances = { 0, 0 };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				Transfers transfers = jvms.get(t % 2);
				boolean forward = (t / 2) % 2 == 0;
				futures.add(executor.submit(() -> {
					for (int i = 0; i < 15; i++) {
						Runnable work = () -> {
							if (inside.incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							int a = balances[0];
							int b = balances[1];
							Thread.onSpinWait();
							balances[0] = a + 1;
							balances[1] = b + 1;
							inside.decrementAndGet();
						};
						if (forward) {
							transfers.both("a", "b", work);
						}
						else {
							transfers.both("b", "a", work);
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(overlaps).hasValue(0);
		assertThat(balances).containsExactly(8 * 15, 8 * 15);
	}

	public static class Transfers {

		private final AtomicInteger calls = new AtomicInteger();

		private final ZkLockRegistry registry;

		public Transfers(ZkLockRegistry registry) {
			this.registry = registry;
		}

		// Through a method: the test holds the proxy, whose own fields are not the bean's
		public AtomicInteger calls() {
			return this.calls;
		}

		@DistributedLock(key = "{'account:' + #from, 'account:' + #to}")
		public List<String> inline(String from, String to) {
			return held(List.of("account:" + from, "account:" + to, "account:c"));
		}

		@DistributedLock(key = "#keys")
		public List<String> collection(List<String> keys) {
			this.calls.incrementAndGet();
			return held(List.of("x", "y", "z"));
		}

		@DistributedLock(key = "#keys")
		public List<String> array(String[] keys) {
			return held(List.of("x", "y", "z"));
		}

		@DistributedLock(key = "{'account:' + #from, 'account:' + #to}", waitMs = 300)
		public void quick(String from, String to) {
			this.calls.incrementAndGet();
		}

		@DistributedLock(key = "{'account:' + #from, 'account:' + #to}", waitMs = 30_000)
		public void both(String from, String to, Runnable work) {
			work.run();
		}

		private List<String> held(List<String> candidates) {
			return candidates.stream().filter((key) -> this.registry.obtain(key).isHeldByCurrentThread()).toList();
		}

	}

}
