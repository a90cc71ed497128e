package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.template.LockContext;
import dev.zklock.template.LockMode;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.LockKind;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Lazy;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @DistributedLock(mode = READ | WRITE)}: readers of a key run together, a writer
 * runs alone, across applications on their own ZooKeeper sessions (as two JVMs); a writer
 * may read (downgrade), a reader may not write (upgrade). Every wait is bounded, and
 * every assertion runs on the test thread: spawned calls hand their results and failures
 * back through futures.
 */
@Timeout(90)
class ReadWriteLockingTests {

	private static final long WAIT_SECONDS = 20;

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

	private final List<String> outcomes = new CopyOnWriteArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void close() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		this.contexts.forEach(AnnotationConfigApplicationContext::close);
	}

	/**
	 * Start an application on its own ZooKeeper session: another JVM, to the server.
	 */
	private AnnotationConfigApplicationContext start() throws Exception {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new KindRecorder(this.outcomes));
		AnnotationConfigApplicationContext context = LockedContext.start(this.zk, (c) -> {
			c.registerBean(ObservationRegistry.class, () -> observations);
			c.registerBean(ZkLockTemplate.class,
					() -> new ZkLockTemplate(c.getBean(ZkLockRegistry.class), observations));
			c.registerBean(Catalog.class);
		});
		this.contexts.add(context);
		return context;
	}

	/**
	 * Wait until ZooKeeper has applied every release of every application so far: a
	 * release returns once its delete is sent, and a one-attempt call in another
	 * application right after it could still find the node.
	 */
	private void releasesApplied() throws InterruptedException {
		for (AnnotationConfigApplicationContext context : this.contexts) {
			assertThat(context.getBean(ZkLockRegistry.class).awaitReleased(Duration.ofSeconds(10))).isTrue();
		}
	}

	@Test
	void readersOfOneBeanRunTogether() throws Exception {
		AnnotationConfigApplicationContext context = start();
		Catalog catalog = context.getBean(Catalog.class);
		CountDownLatch bothInside = new CountDownLatch(2);
		CountDownLatch leave = new CountDownLatch(1);
		List<Future<Boolean>> readers = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			readers.add(this.executor.submit(() -> {
				boolean[] overlapped = new boolean[1];
				catalog.read("c-1", () -> {
					bothInside.countDown();
					// Each reader sees the other inside before it leaves: they overlapped
					overlapped[0] = await(bothInside);
					await(leave);
				});
				return overlapped[0];
			}));
		}
		assertThat(bothInside.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("both readers inside").isTrue();
		ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
		assertThat(registry.localLocks()).filteredOn((info) -> info.key().equals("catalog:c-1"))
			.singleElement()
			.satisfies((info) -> {
				assertThat(info.kind()).isEqualTo(LockKind.READ_WRITE);
				assertThat(info.holds()).isEqualTo(2);
				assertThat(info.holderThread()).isNull();
			});
		leave.countDown();
		for (Future<Boolean> reader : readers) {
			assertThat(reader.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(catalog.calls()).hasValue(2);
		assertThat(this.outcomes).containsOnly("Catalog.read:read:acquired");
	}

	@Test
	void aWriterExcludesReadersAndWritersOfAnotherJvm() throws Exception {
		Catalog here = start().getBean(Catalog.class);
		Catalog elsewhere = start().getBean(Catalog.class);
		CountDownLatch inside = new CountDownLatch(1);
		CountDownLatch leave = new CountDownLatch(1);
		Future<String> writer = this.executor.submit(() -> here.write("c-1", () -> {
			inside.countDown();
			await(leave);
		}));
		assertThat(inside.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertBusy(() -> elsewhere.tryRead("c-1"), LockAcquisitionException.Reason.HELD_REMOTELY);
		assertBusy(() -> elsewhere.tryWrite("c-1"), LockAcquisitionException.Reason.HELD_REMOTELY);
		// Another thread of the writer's own JVM is excluded as well
		Future<String> localReader = this.executor.submit(() -> here.tryRead("c-1"));
		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.isThrownBy(() -> localReader.get(WAIT_SECONDS, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockAcquisitionException.class);
		// A reader that waits gets in once the writer leaves, and not before
		Future<String> waitingReader = this.executor.submit(() -> elsewhere.read("c-1", () -> {
		}));
		// Its node queued behind the writer's: it waits, and must not be in yet
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/catalog:c-1")).hasSize(2));
		assertThat(waitingReader).isNotDone();
		leave.countDown();
		assertThat(writer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("wrote c-1");
		assertThat(waitingReader.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("read c-1");
		releasesApplied();
		assertThat(elsewhere.tryWrite("c-1")).isEqualTo("wrote c-1");
	}

	@Test
	void readersOfTwoJvmsShareTheKeyAndExcludeAWriter() throws Exception {
		Catalog here = start().getBean(Catalog.class);
		Catalog elsewhere = start().getBean(Catalog.class);
		CountDownLatch inside = new CountDownLatch(1);
		CountDownLatch leave = new CountDownLatch(1);
		Future<String> reader = this.executor.submit(() -> here.read("c-2", () -> {
			inside.countDown();
			await(leave);
		}));
		assertThat(inside.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(elsewhere.tryRead("c-2")).isEqualTo("read c-2");
		assertBusy(() -> elsewhere.tryWrite("c-2"), LockAcquisitionException.Reason.HELD_REMOTELY);
		leave.countDown();
		assertThat(reader.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("read c-2");
		releasesApplied();
		assertThat(elsewhere.tryWrite("c-2")).isEqualTo("wrote c-2");
	}

	@Test
	void noWriterEverOverlapsAnotherCallAcrossJvms() throws Exception {
		List<Catalog> jvms = List.of(start().getBean(Catalog.class), start().getBean(Catalog.class));
		AtomicInteger readersInside = new AtomicInteger();
		AtomicInteger writersInside = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger writes = new AtomicInteger();
		List<Future<?>> callers = new ArrayList<>();
		for (int t = 0; t < 6; t++) {
			Catalog catalog = jvms.get(t % 2);
			boolean writes2 = t < 2;
			callers.add(this.executor.submit(() -> {
				for (int i = 0; i < 8; i++) {
					if (writes2 && i % 2 == 0) {
						catalog.write("shared", () -> {
							if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
								violations.incrementAndGet();
							}
							sleep(3);
							writes.incrementAndGet();
							writersInside.decrementAndGet();
						});
					}
					else {
						catalog.read("shared", () -> {
							readersInside.incrementAndGet();
							if (writersInside.get() != 0) {
								violations.incrementAndGet();
							}
							sleep(3);
							readersInside.decrementAndGet();
						});
					}
				}
				return null;
			}));
		}
		for (Future<?> caller : callers) {
			caller.get(60, TimeUnit.SECONDS);
		}
		assertThat(violations).hasValue(0);
		assertThat(writes).hasValue(8);
	}

	@Test
	void aWriterMayReadTheSameKeyDowngrading() throws Exception {
		Catalog catalog = start().getBean(Catalog.class);
		assertThat(catalog.writeThenRead("c-3")).isEqualTo("wrote, then read c-3 with token true");
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/catalog:c-3")).isEmpty());
		assertThat(this.outcomes).containsExactly("Catalog.writeThenRead:write:acquired", "Catalog.read:read:acquired");
	}

	@Test
	void aReaderMayNotWriteTheSameKey() throws Exception {
		Catalog catalog = start().getBean(Catalog.class);
		Catalog elsewhere = start().getBean(Catalog.class);
		assertThatIllegalStateException().isThrownBy(() -> catalog.readThenWrite("c-4"))
			.withMessageContaining("holds the read lock of 'catalog:c-4'")
			.withMessageContaining("upgrading would wait for ever");
		assertThat(catalog.calls()).hasValue(1);
		// The read was given back on the way out: a writer elsewhere gets in at once
		releasesApplied();
		assertThat(elsewhere.tryWrite("c-4")).isEqualTo("wrote c-4");
		assertThat(this.outcomes).contains("Catalog.readThenWrite:read:acquired", "Catalog.write:write:error");
	}

	@Test
	void severalKeysTakeTheirSideOfEachAllOrNothing() throws Exception {
		Catalog here = start().getBean(Catalog.class);
		Catalog elsewhere = start().getBean(Catalog.class);
		CountDownLatch inside = new CountDownLatch(1);
		CountDownLatch leave = new CountDownLatch(1);
		Future<String> writer = this.executor.submit(() -> here.writeBoth("b", "a", () -> {
			inside.countDown();
			await(leave);
		}));
		assertThat(inside.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertBusy(() -> elsewhere.tryRead("a"), LockAcquisitionException.Reason.HELD_REMOTELY);
		assertBusy(() -> elsewhere.tryRead("b"), LockAcquisitionException.Reason.HELD_REMOTELY);
		leave.countDown();
		assertThat(writer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("wrote [catalog:a, catalog:b]");
		// A key that cannot be taken gives back the one taken before it
		CountDownLatch readerInside = new CountDownLatch(1);
		CountDownLatch readerLeaves = new CountDownLatch(1);
		Future<String> reader = this.executor.submit(() -> elsewhere.read("b", () -> {
			readerInside.countDown();
			await(readerLeaves);
		}));
		assertThat(readerInside.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> here.tryWriteBoth("a", "b"))
			.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("catalog:b"));
		releasesApplied();
		assertThat(elsewhere.tryWrite("a")).isEqualTo("wrote a");
		readerLeaves.countDown();
		assertThat(reader.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("read b");
	}

	private static void assertBusy(Runnable call, LockAcquisitionException.Reason reason) {
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(call::run)
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(reason));
	}

	private static boolean await(CountDownLatch latch) {
		try {
			return latch.await(WAIT_SECONDS, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Records {@code name:kind:outcome} of every finished wait.
	 */
	private record KindRecorder(List<String> outcomes) implements ObservationHandler<Observation.Context> {

		@Override
		public boolean supportsContext(Observation.Context context) {
			return ZkLockTemplate.ACQUIRE_OBSERVATION.equals(context.getName());
		}

		@Override
		public void onStop(Observation.Context context) {
			this.outcomes.add(context.getLowCardinalityKeyValue("lock.name").getValue() + ":"
					+ context.getLowCardinalityKeyValue("kind").getValue() + ":"
					+ context.getLowCardinalityKeyValue("outcome").getValue());
		}

	}

	public static class Catalog {

		private final AtomicInteger calls = new AtomicInteger();

		private Catalog self;

		@Autowired
		void setSelf(@Lazy Catalog self) {
			this.self = self;
		}

		AtomicInteger calls() {
			return this.calls;
		}

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.READ, waitAtMost = "20s")
		public String read(String id, Runnable inside) {
			this.calls.incrementAndGet();
			inside.run();
			return "read " + id;
		}

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.WRITE, waitAtMost = "20s")
		public String write(String id, Runnable inside) {
			this.calls.incrementAndGet();
			inside.run();
			return "wrote " + id;
		}

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.READ, waitMs = 0)
		public String tryRead(String id) {
			return "read " + id;
		}

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.WRITE, waitMs = 0)
		public String tryWrite(String id) {
			return "wrote " + id;
		}

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.WRITE, waitAtMost = "20s")
		public String writeThenRead(String id) {
			long writeToken = LockContext.current().fencingToken();
			String read = this.self.read(id, () -> {
				// The read shares the writer's JVM and is seen as its own hold
				if (LockContext.current().fencingToken() <= 0 || writeToken <= 0) {
					throw new IllegalStateException("No token");
				}
			});
			return "wrote, then " + read + " with token " + (writeToken > 0);
		}

		@DistributedLock(key = "'catalog:' + #id", mode = LockMode.READ, waitAtMost = "20s")
		public String readThenWrite(String id) {
			this.calls.incrementAndGet();
			return this.self.write(id, () -> {
				throw new AssertionError("An upgrade must never run");
			});
		}

		@DistributedLock(key = "{'catalog:' + #first, 'catalog:' + #second}", mode = LockMode.WRITE, waitAtMost = "20s")
		public String writeBoth(String first, String second, Runnable inside) {
			inside.run();
			return "wrote " + LockContext.current().keys();
		}

		@DistributedLock(key = "{'catalog:' + #first, 'catalog:' + #second}", mode = LockMode.WRITE, waitMs = 0)
		public String tryWriteBoth(String first, String second) {
			return "wrote " + LockContext.current().keys();
		}

	}

}
