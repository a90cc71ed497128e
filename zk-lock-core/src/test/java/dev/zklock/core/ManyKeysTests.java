package dev.zklock.core;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry forgets keys nobody holds or waits for: its map ends empty after a great
 * many distinct keys. CI runs 100,000 keys (a fresh key takes 2 round trips to acquire;
 * 35 to 60 s here, by the day's disk); {@code -Dzklock.test.keys=1000000} runs the full
 * million, as recorded in the core README.
 */
// Generous so that the full million also fits; CI runs 100,000 keys in about a minute
@Timeout(value = 15, unit = java.util.concurrent.TimeUnit.MINUTES)
class ManyKeysTests {

	static final int KEYS = Integer.getInteger("zklock.test.keys", 100_000);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void distinctKeysLeaveNothingBehindInTheRegistry() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		int threads = 64;
		AtomicInteger next = new AtomicInteger();
		AtomicInteger maxSize = new AtomicInteger();
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long[] heapAfterWarmup = { 0 };
		long start = System.nanoTime();
		ZkLockRegistryTests.runConcurrently(threads, Duration.ofMinutes(14), () -> {
			int i;
			while ((i = next.getAndIncrement()) < KEYS) {
				registry.executeLocked("key-" + i, Duration.ofSeconds(30), () -> {
				});
				if (i % 10_000 == 0) {
					maxSize.accumulateAndGet(registry.size(), Math::max);
				}
				if (i == KEYS / 10) {
					System.gc();
					heapAfterWarmup[0] = memory.getHeapMemoryUsage().getUsed();
				}
			}
			return null;
		});
		System.out.printf("%d keys in %d ms%n", KEYS, (System.nanoTime() - start) / 1_000_000);
		assertThat(registry.size()).isZero();
		assertThat(maxSize.get()).isLessThanOrEqualTo(threads);
		System.gc();
		long heapAtEnd = memory.getHeapMemoryUsage().getUsed();
		System.out.printf("heap after warm-up %d KiB, at end %d KiB%n", heapAfterWarmup[0] / 1024, heapAtEnd / 1024);
	}

}
