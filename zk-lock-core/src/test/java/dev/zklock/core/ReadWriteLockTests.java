package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.test.ZkFaultProxy;
import dev.zklock.core.internal.readwrite.ReadWriteEntry;
import dev.zklock.core.registry.RegistryAccess;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.test.ZkLockTestKit;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The read/write lock on real ZooKeeper servers: registries on separate clients stand for
 * separate JVMs, and plain Curator {@link InterProcessReadWriteLock}s share the path.
 */
@Timeout(120)
class ReadWriteLockTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	/** Where the application's session is expired: the 4 s sessions of before. */
	@RegisterExtension
	static ZkLockTestKit kit = ZkLockTestKit.create()
		.sessionTimeout(Duration.ofSeconds(4))
		.timeout(Duration.ofSeconds(20));

	@Test
	void readersOfOneJvmShareOneReadNode() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock read = registry.obtainReadWrite("shared").readLock();
		int threads = 200;
		CountDownLatch allHold = new CountDownLatch(threads);
		CountDownLatch release = new CountDownLatch(1);
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> readers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Thread reader = new Thread(() -> {
				try {
					read.acquire(Duration.ofSeconds(30));
					try {
						allHold.countDown();
						release.await(60, TimeUnit.SECONDS);
					}
					finally {
						read.unlock();
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			});
			readers.add(reader);
			reader.start();
		}
		assertThat(allHold.await(60, TimeUnit.SECONDS)).as("all readers hold at once").isTrue();
		List<String> children = this.zk.children("/locks/shared");
		assertThat(children).hasSize(1);
		assertThat(children.get(0)).contains("__READ__");
		assertThat(registry.localLocks()).singleElement().satisfies((info) -> {
			assertThat(info.kind()).isEqualTo(LockKind.READ_WRITE);
			assertThat(info.holds()).isEqualTo(threads);
			assertThat(info.held()).isTrue();
		});
		release.countDown();
		for (Thread reader : readers) {
			reader.join(30_000);
		}
		assertThat(failures).isEmpty();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/shared")).isEmpty());
		assertThat(registry.size()).isZero();
	}

	@Test
	void aWriterExcludesReadersAndWritersOfOtherJvms() throws Exception {
		ZkReadWriteLock a = this.zk.newRegistry().obtainReadWrite("doc");
		ZkReadWriteLock b = this.zk.newRegistry().obtainReadWrite("doc");
		a.writeLock().lock();
		assertThat(onOtherThread(() -> b.readLock().tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		assertThat(onOtherThread(() -> b.writeLock().tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		a.writeLock().unlock();
		b.readLock().lock();
		assertThat(onOtherThread(() -> a.writeLock().tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		assertThat(onOtherThread(() -> tryReadAndRelease(a.readLock()))).as("readers share").isTrue();
		b.readLock().unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/doc")).isEmpty());
	}

	@Test
	void interoperatesWithCuratorReadWriteLock() throws Exception {
		ZkReadWriteLock ours = this.zk.newRegistry().obtainReadWrite("mixed");
		CuratorFramework client = this.zk.newClient();
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, "/locks/mixed");

		curator.writeLock().acquire();
		assertThat(onOtherThread(() -> ours.readLock().tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		curator.writeLock().release();

		ours.readLock().lock();
		assertThat(onOtherThread(() -> {
			boolean got = curator.readLock().acquire(5, TimeUnit.SECONDS);
			if (got) {
				curator.readLock().release();
			}
			return got;
		})).as("Curator reads alongside our reader").isTrue();
		assertThat(onOtherThread(() -> curator.writeLock().acquire(200, TimeUnit.MILLISECONDS))).isFalse();
		ours.readLock().unlock();

		ours.writeLock().lock();
		assertThat(onOtherThread(() -> curator.readLock().acquire(200, TimeUnit.MILLISECONDS))).isFalse();
		ours.writeLock().unlock();

		// A Curator writer queued behind our reader gets in when it leaves
		ours.readLock().lock();
		CompletableFuture<Boolean> curatorWrite = CompletableFuture.supplyAsync(() -> {
			try {
				boolean got = curator.writeLock().acquire(10, TimeUnit.SECONDS);
				if (got) {
					curator.writeLock().release();
				}
				return got;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/mixed").size() == 2);
		ours.readLock().unlock();
		assertThat(curatorWrite.get(15, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/mixed").isEmpty());
	}

	@Test
	void aWriterMayDowngradeAndKeepsOthersOutUntilItsLastRead() throws Exception {
		ZkReadWriteLock ours = this.zk.newRegistry().obtainReadWrite("down");
		ZkReadWriteLock other = this.zk.newRegistry().obtainReadWrite("down");
		ours.writeLock().lock();
		long writeToken = ours.writeLock().fencingToken();
		ours.readLock().lock();
		ours.writeLock().unlock();
		assertThat(ours.readLock().isHeldByCurrentThread()).isTrue();
		assertThat(ours.writeLock().isHeldByCurrentThread()).isFalse();
		assertThat(ours.readLock().fencingToken()).isEqualTo(writeToken);
		assertThat(onOtherThread(() -> other.writeLock().tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		ours.readLock().unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/down")).isEmpty());
		assertThat(onOtherThread(() -> {
			other.writeLock().lock();
			long token = other.writeLock().fencingToken();
			other.writeLock().unlock();
			return token;
		})).isGreaterThan(writeToken);
	}

	@Test
	void aReaderCannotUpgrade() throws Exception {
		ZkReadWriteLock lock = this.zk.newRegistry().obtainReadWrite("up");
		lock.readLock().lock();
		assertThatIllegalStateException().isThrownBy(() -> lock.writeLock().tryLock(1, TimeUnit.SECONDS))
			.withMessageContaining("'up'")
			.withMessageContaining("upgrading");
		assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
		lock.readLock().unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/up")).isEmpty());
	}

	@Test
	void bothSidesAreReentrant() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkReadWriteLock lock = registry.obtainReadWrite("again");
		lock.writeLock().lock();
		lock.writeLock().lock();
		lock.readLock().lock();
		lock.readLock().lock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/again")).hasSize(1));
		lock.readLock().unlock();
		lock.readLock().unlock();
		lock.writeLock().unlock();
		assertThat(lock.writeLock().isHeldByCurrentThread()).isTrue();
		lock.writeLock().unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/again")).isEmpty());
		assertThat(registry.size()).isZero();
		assertThatThrownBy(lock.readLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThatThrownBy(lock.writeLock()::toLease).isInstanceOf(UnsupportedOperationException.class);
	}

	@Test
	void aWaitingLocalWriterIsNotOvertakenByLaterReaders() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkReadWriteLock lock = registry.obtainReadWrite("fair");
		lock.readLock().lock();
		AtomicBoolean wrote = new AtomicBoolean();
		// A task, so that a failure of the writer's lock or unlock fails this test rather
		// than only its thread
		FutureTask<Void> write = new FutureTask<>(() -> {
			lock.writeLock().lock();
			try {
				wrote.set(true);
			}
			finally {
				lock.writeLock().unlock();
			}
			return null;
		});
		Thread writer = new Thread(write, "writer");
		writer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> entry(registry, "fair").local.hasQueuedThread(writer));
		assertThat(onOtherThread(() -> tryReadAndRelease(lock.readLock(), 200))).as("a later reader waits").isFalse();
		lock.readLock().unlock();
		write.get(10, TimeUnit.SECONDS);
		assertThat(wrote).isTrue();
	}

	@Test
	void aStreamOfLocalReadersDoesNotKeepAnotherJvmsWriterOut() throws Exception {
		ZkReadWriteLock busy = this.zk.newRegistry(ZkLockOptions.defaults().withMaxLocalHandoffs(2))
			.obtainReadWrite("stream");
		try (ReaderStream stream = new ReaderStream(busy)) {
			stream.awaitMoreReads(10);
			assertThat(tryWriteAndRelease(busy.path())).as("the other JVM's writer gets in").isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/stream").isEmpty());
	}

	/**
	 * With nobody else on the key, readers of one JVM join one read node for as long as
	 * it is held: the delete of this JVM's node before (which fires the child watch its
	 * list had set) does not count as another JVM waiting.
	 */
	@Test
	void aStreamOfLocalReadersAloneKeepsOneReadNode() throws Exception {
		ZkReadWriteLock busy = this.zk.newRegistry(ZkLockOptions.defaults().withMaxLocalHandoffs(2))
			.obtainReadWrite("alone");
		// A local writer's node first; the reader waiting behind it keeps the entry, so
		// the event of the writer's delete finds it
		busy.writeLock().lock();
		try (HeldRead held = new HeldRead(busy)) {
			eventually().until(() -> held.thread.getState() == Thread.State.WAITING);
			busy.writeLock().unlock();
			long token = held.token();
			try (ReaderStream stream = new ReaderStream(busy)) {
				stream.awaitMoreReads(40);
				assertThat(stream.tokens).as("read nodes used").containsOnly(token);
			}
		}
	}

	/**
	 * Another JVM's reader holds alongside the read node, ahead of it or behind it, and
	 * waits for nothing: it does not hold this JVM's readers back, while a writer behind
	 * the node still does.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void anotherJvmsReaderDoesNotLimitLocalJoins(boolean otherReaderFirst) throws Exception {
		ZkReadWriteLock busy = this.zk.newRegistry(ZkLockOptions.defaults().withMaxLocalHandoffs(2))
			.obtainReadWrite("readers");
		ZkReadWriteLock other = this.zk.newRegistry().obtainReadWrite("readers");
		// Ahead: this JVM's child list shows it. Behind: this JVM's child watch fires,
		// as it would for a writer
		HeldRead otherRead = otherReaderFirst ? new HeldRead(other) : null;
		if (otherRead != null) {
			otherRead.token();
		}
		try (HeldRead held = new HeldRead(busy)) {
			long token = held.token();
			if (otherRead == null) {
				otherRead = new HeldRead(other);
				otherRead.token();
			}
			try (ReaderStream stream = new ReaderStream(busy)) {
				stream.awaitMoreReads(20);
				assertThat(stream.tokens).as("read nodes used").containsOnly(token);
				otherRead.close();
				held.close();
				assertThat(tryWriteAndRelease(busy.path())).as("the other JVM's writer gets in").isTrue();
			}
		}
		finally {
			if (otherRead != null) {
				otherRead.close();
			}
		}
	}

	/**
	 * A stream of readers makes way for another JVM's writer after this JVM's connection
	 * dropped, also on a client that does not set its watches again on reconnect: then
	 * the child watch that would tell of the writer is gone without an event.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aStreamOfLocalReadersMakesWayAfterAnOutage(boolean disableAutoWatchReset) throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString(), disableAutoWatchReset);
		long session = client.getZookeeperClient().getZooKeeper().getSessionId();
		// Room for the joins between the disconnect and the lease's UNCERTAIN
		ZkReadWriteLock busy = this.zk.newRegistry(client, ZkLockOptions.defaults().withMaxLocalHandoffs(50))
			.obtainReadWrite("outage");
		try (ReaderStream stream = new ReaderStream(busy)) {
			stream.awaitMoreReads(10);
			// A read held through the outage keeps the read node: the readers that cannot
			// join while the connection is down do not let it go
			try (HeldRead held = new HeldRead(busy)) {
				held.token();
				proxy.refuse(true);
				eventually().until(() -> !client.getZookeeperClient().isConnected());
				proxy.refuse(false);
				eventually().until(() -> client.getZookeeperClient().isConnected());
				assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
				// On the node kept, woken by the reconnect
				stream.awaitMoreReads(2);
			}
			assertThat(tryWriteAndRelease(busy.path())).as("the other JVM's writer gets in").isTrue();
		}
	}

	/**
	 * A reader that comes while the connection is down waits, as the read node is not
	 * known held; the reconnect on the same session makes it held again, and the reader
	 * joins it then, not when the read node goes.
	 */
	@Test
	void aReaderWaitingThroughAnOutageJoinsWhenTheNodeIsHeldAgain() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		long session = client.getZookeeperClient().getZooKeeper().getSessionId();
		ZkReadWriteLock lock = this.zk.newRegistry(client).obtainReadWrite("held-again");
		lock.readLock().lock();
		try {
			long token = lock.readLock().fencingToken();
			proxy.refuse(true);
			eventually().until(() -> lock.readLock().leaseState() == LeaseState.UNCERTAIN);
			CompletableFuture<Long> joined = new CompletableFuture<>();
			Thread reader = new Thread(() -> {
				try {
					lock.readLock().lockInterruptibly();
					try {
						joined.complete(lock.readLock().fencingToken());
					}
					finally {
						lock.readLock().unlock();
					}
				}
				catch (Throwable ex) {
					joined.completeExceptionally(ex);
				}
			});
			reader.start();
			try {
				eventually().until(() -> reader.getState() == Thread.State.WAITING);
				assertThat(joined).as("no join while the node is not known held").isNotDone();
				proxy.refuse(false);
				eventually().until(() -> lock.readLock().leaseState() == LeaseState.HELD);
				assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
				assertThat(joined.get(10, TimeUnit.SECONDS)).as("joined the node held again").isEqualTo(token);
			}
			finally {
				reader.interrupt();
				reader.join(20_000);
			}
		}
		finally {
			lock.readLock().unlock();
		}
	}

	/**
	 * Whether a writer of another JVM gets the lock within 20 s.
	 */
	private boolean tryWriteAndRelease(String path) throws Exception {
		ZkLock write = this.zk.newRegistry().obtainReadWrite(path.substring("/locks/".length())).writeLock();
		if (write.tryLock(20, TimeUnit.SECONDS)) {
			write.unlock();
			return true;
		}
		return false;
	}

	/**
	 * A read hold of another thread of this JVM, kept until closed.
	 */
	private static final class HeldRead implements AutoCloseable {

		final Thread thread;

		private final CompletableFuture<Long> token = new CompletableFuture<>();

		private final CompletableFuture<Void> release = new CompletableFuture<>();

		HeldRead(ZkReadWriteLock lock) {
			this.thread = new Thread(() -> {
				try {
					lock.readLock().lock();
				}
				catch (Throwable ex) {
					this.token.completeExceptionally(ex);
					return;
				}
				try {
					this.token.complete(lock.readLock().fencingToken());
					this.release.get(60, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					this.token.completeExceptionally(ex);
				}
				finally {
					lock.readLock().unlock();
				}
			});
			this.thread.start();
		}

		/**
		 * The read node's fencing token, once the hold is taken.
		 */
		long token() throws Exception {
			return this.token.get(20, TimeUnit.SECONDS);
		}

		@Override
		public void close() throws InterruptedException {
			this.release.complete(null);
			this.thread.join(20_000);
		}

	}

	/**
	 * Four readers of one JVM that hold in turn, overlapping, each for a different time,
	 * so that some reader always holds, even after all of them started together.
	 */
	private static final class ReaderStream implements AutoCloseable {

		final Set<Long> tokens = ConcurrentHashMap.newKeySet();

		private final AtomicBoolean stop = new AtomicBoolean();

		private final AtomicInteger reads = new AtomicInteger();

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		private final List<Thread> readers = new ArrayList<>();

		ReaderStream(ZkReadWriteLock lock) {
			for (int i = 0; i < 4; i++) {
				long holdMillis = 20 + 7 * i;
				Thread reader = new Thread(() -> {
					try {
						while (!this.stop.get()) {
							if (lock.readLock().tryLock(5, TimeUnit.SECONDS)) {
								this.tokens.add(lock.readLock().fencingToken());
								this.reads.incrementAndGet();
								Thread.sleep(holdMillis);
								lock.readLock().unlock();
							}
						}
					}
					catch (Throwable ex) {
						this.failures.add(ex);
					}
				});
				this.readers.add(reader);
				reader.start();
			}
		}

		void awaitMoreReads(int more) {
			int before = this.reads.get();
			await().atMost(Duration.ofSeconds(20)).until(() -> this.reads.get() >= before + more);
		}

		@Override
		public void close() throws InterruptedException {
			this.stop.set(true);
			for (Thread reader : this.readers) {
				reader.join(20_000);
			}
			assertThat(this.failures).isEmpty();
		}

	}

	@Test
	void closingTheRegistryFailsLocalWaiters() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkReadWriteLock lock = registry.obtainReadWrite("closing");
		lock.writeLock().lock();
		CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				lock.readLock().lock();
				return null;
			}
			catch (Throwable ex) {
				return ex;
			}
		}, TestThreads.EXECUTOR);
		await().atMost(Duration.ofSeconds(10)).until(() -> entry(registry, "closing").local.hasQueuedThreads());
		registry.close();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("closed");
		assertThat(lock.writeLock().isHeldByCurrentThread()).isTrue();
		lock.writeLock().unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/closing")).isEmpty());
	}

	@Test
	void aReaderNeverJoinsTheReadNodeOfALostSession() throws Exception {
		ZkLockRegistry registry = kit.registry();
		ZkReadWriteLock lock = registry.obtainReadWrite("expiring");
		lock.readLock().lock();
		long token = lock.readLock().fencingToken();
		kit.expireSession();
		assertThat(lock.readLock().leaseState()).isEqualTo(LeaseState.LOST);
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.getClient().getZookeeperClient().isConnected());
		CompletableFuture<Long> later = CompletableFuture.supplyAsync(() -> {
			lock.readLock().acquire(Duration.ofSeconds(30));
			try {
				return lock.readLock().fencingToken();
			}
			finally {
				lock.readLock().unlock();
			}
		}, TestThreads.EXECUTOR);
		assertThat(onOtherThread(() -> tryReadAndRelease(lock.readLock(), 300))).as("no join of a lost node").isFalse();
		assertThat(later).isNotDone();
		assertThatThrownBy(lock.readLock()::lock).as("no reentry of a lost hold").isInstanceOf(LockLostException.class);
		assertThatThrownBy(lock.writeLock()::lock).isInstanceOf(IllegalStateException.class);
		assertThatThrownBy(lock.readLock()::unlock).isInstanceOf(LockLostException.class);
		assertThat(later.get(30, TimeUnit.SECONDS)).as("a new node").isGreaterThan(token);
		kit.assertThatKey("expiring").isNotHeld();
	}

	private static ReadWriteEntry entry(ZkLockRegistry registry, String key) {
		ReadWriteEntry entry = RegistryAccess.readWriteEntry(registry, key);
		assertThat(entry).isNotNull();
		return entry;
	}

	private static boolean tryReadAndRelease(ZkLock read) throws InterruptedException {
		return tryReadAndRelease(read, 5000);
	}

	private static boolean tryReadAndRelease(ZkLock read, long millis) throws InterruptedException {
		if (read.tryLock(millis, TimeUnit.MILLISECONDS)) {
			read.unlock();
			return true;
		}
		return false;
	}

	private static <T> T onOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
		CompletableFuture<T> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				result.complete(task.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		thread.start();
		return result.get(30, TimeUnit.SECONDS);
	}

}
