package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import jdk.jfr.Recording;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A lock client in its own JVM whose {@code threads} virtual threads each take one
 * {@link ZkLockRegistry} lock once and, under it, increment a number kept in a file
 * without any other synchronization (every tenth takes the lock again inside, as a
 * reentrant call would), while a JFR recording takes every
 * {@code jdk.VirtualThreadPinned} event, whatever its duration, with its stack trace.
 * Started by {@link VirtualThreadContentionTests}; needs Java 21, and is compiled for
 * Java 17, so virtual threads are made reflectively.
 *
 * <p>
 * Arguments: {@code connectString key threads counterFile jfrFile readyFile goFile}: the
 * worker writes {@code readyFile} once connected and starts its threads when
 * {@code goFile} exists, so that two workers contend from the start.
 */
public final class VirtualThreadLockWorkerMain {

	private VirtualThreadLockWorkerMain() {
	}

	public static void main(String[] args) throws Throwable {
		String connectString = args[0];
		String key = args[1];
		int threads = Integer.parseInt(args[2]);
		Path counter = Path.of(args[3]);
		Path jfr = Path.of(args[4]);
		Path ready = Path.of(args[5]);
		Path go = Path.of(args[6]);
		ThreadFactory virtualThreads = virtualThreadFactory();
		try (Recording recording = new Recording();
				CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000,
						new ExponentialBackoffRetry(100, 3))) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			client.start();
			if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not connected to " + connectString);
			}
			ZkLockRegistry registry = new ZkLockRegistry(client);
			Lock lock = registry.obtain(key);
			// Through the paths, contended too, before the virtual threads start, so that
			// their classes are loaded and initialized: a virtual thread that waits for
			// another's class initialization stays pinned (a JDK limit, once per class),
			// and the recording is to show the engine's own pins
			warmUp(lock);
			Files.writeString(ready, "ready");
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
			while (!Files.exists(go)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("No go file " + go);
				}
				Thread.sleep(10);
			}
			CountDownLatch done = new CountDownLatch(threads);
			AtomicReference<Throwable> failure = new AtomicReference<>();
			for (int i = 0; i < threads; i++) {
				boolean reenter = (i % 10 == 0);
				virtualThreads.newThread(() -> {
					try {
						increment(lock, counter, reenter);
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
					}
					finally {
						done.countDown();
					}
				}).start();
			}
			if (!done.await(240, TimeUnit.SECONDS)) {
				throw new IllegalStateException(done.getCount() + " of " + threads + " virtual threads not done");
			}
			if (failure.get() != null) {
				throw failure.get();
			}
			registry.close();
			recording.stop();
			recording.dump(jfr);
			System.out.println("java.version=" + System.getProperty("java.version"));
		}
	}

	private static void warmUp(Lock lock) throws InterruptedException {
		List<Thread> warmers = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			Thread warmer = new Thread(() -> {
				for (int j = 0; j < 25; j++) {
					lock.lock();
					try {
						lock.lock();
						lock.unlock();
						Thread.yield();
					}
					finally {
						lock.unlock();
					}
				}
			});
			warmer.start();
			warmers.add(warmer);
		}
		for (Thread warmer : warmers) {
			warmer.join(TimeUnit.SECONDS.toMillis(60));
			if (warmer.isAlive()) {
				throw new IllegalStateException("Warm-up not done in 60 s");
			}
		}
	}

	private static void increment(Lock lock, Path counter, boolean reenter) throws Exception {
		lock.lock();
		try {
			if (reenter) {
				lock.lock();
			}
			try {
				int value = Integer.parseInt(Files.readString(counter).trim());
				// Give another holder, if there were one, the time to read the same value
				Thread.yield();
				Files.writeString(counter, Integer.toString(value + 1));
			}
			finally {
				if (reenter) {
					lock.unlock();
				}
			}
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * {@code Thread.ofVirtual().factory()}, through reflection: this class is compiled
	 * for Java 17.
	 */
	private static ThreadFactory virtualThreadFactory() throws ReflectiveOperationException {
		Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
		return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
	}

}
