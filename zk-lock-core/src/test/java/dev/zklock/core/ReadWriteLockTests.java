package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

import static dev.zklock.core.InProcessZooKeeper.eventually;
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
	final InProcessZooKeeper zk = new InProcessZooKeeper();

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
		});
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
		ZkReadWriteLock lock = this.zk.newRegistry().obtainReadWrite("fair");
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
		await().atMost(Duration.ofSeconds(10))
			.until(() -> ((ReadWriteEntry) entry(lock)).local.hasQueuedThread(writer));
		assertThat(onOtherThread(() -> tryReadAndRelease(lock.readLock(), 200))).as("a later reader waits").isFalse();
		lock.readLock().unlock();
		write.get(10, TimeUnit.SECONDS);
		assertThat(wrote).isTrue();
	}

	@Test
	void aStreamOfLocalReadersDoesNotKeepAnotherJvmsWriterOut() throws Exception {
		ZkReadWriteLock busy = this.zk.newRegistry(ZkLockOptions.defaults().withMaxLocalHandoffs(2))
			.obtainReadWrite("stream");
		ZkReadWriteLock other = this.zk.newRegistry().obtainReadWrite("stream");
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger reads = new AtomicInteger();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> readers = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			// Overlapping holds: some reader of this JVM always holds
			Thread reader = new Thread(() -> {
				try {
					while (!stop.get()) {
						if (busy.readLock().tryLock(5, TimeUnit.SECONDS)) {
							reads.incrementAndGet();
							Thread.sleep(20);
							busy.readLock().unlock();
						}
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			});
			readers.add(reader);
			reader.start();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > 10);
		try {
			assertThat(other.writeLock().tryLock(20, TimeUnit.SECONDS)).as("the other JVM's writer gets in").isTrue();
			other.writeLock().unlock();
		}
		finally {
			stop.set(true);
			for (Thread reader : readers) {
				reader.join(20_000);
			}
		}
		assertThat(failures).isEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/stream").isEmpty());
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
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> ((ReadWriteEntry) entry(lock)).local.hasQueuedThreads());
		registry.close();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("closed");
		assertThat(lock.writeLock().isHeldByCurrentThread()).isTrue();
		lock.writeLock().unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/closing")).isEmpty());
	}

	@Test
	void aReaderNeverJoinsTheReadNodeOfALostSession() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkReadWriteLock lock = registry.obtainReadWrite("expiring");
		lock.readLock().lock();
		long token = lock.readLock().fencingToken();
		registry.getClient().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(20))
			.until(() -> lock.readLock().leaseState() == LeaseState.LOST);
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.getClient().getZookeeperClient().isConnected());
		CompletableFuture<Long> later = CompletableFuture.supplyAsync(() -> {
			lock.readLock().acquire(Duration.ofSeconds(30));
			try {
				return lock.readLock().fencingToken();
			}
			finally {
				lock.readLock().unlock();
			}
		});
		assertThat(onOtherThread(() -> tryReadAndRelease(lock.readLock(), 300))).as("no join of a lost node").isFalse();
		assertThat(later).isNotDone();
		assertThatThrownBy(lock.readLock()::lock).as("no reentry of a lost hold").isInstanceOf(LockLostException.class);
		assertThatThrownBy(lock.writeLock()::lock).isInstanceOf(IllegalStateException.class);
		assertThatThrownBy(lock.readLock()::unlock).isInstanceOf(LockLostException.class);
		assertThat(later.get(30, TimeUnit.SECONDS)).as("a new node").isGreaterThan(token);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.zk.children("/locks/expiring").isEmpty());
	}

	private static TableEntry entry(ZkReadWriteLock lock) throws Exception {
		java.lang.reflect.Field field = DefaultZkReadWriteLock.class.getDeclaredField("engine");
		field.setAccessible(true);
		TableEntry entry = ((ReadWriteEngine) field.get(lock)).entry(lock.path());
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
