package dev.zklock.counterapp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.zklock.annotation.DistributedLock;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;

/**
 * A minimal application on the starter, run in several JVMs by
 * {@code StarterCrossProcessTests}: its threads increment numbers kept in files, without
 * any synchronization but {@code @DistributedLock}, through the method kind
 * {@code counter.mode} names: {@code sync}, {@code future}, {@code mono} or {@code pairs}
 * (two keys). Outside the shop's package, so the shop's component scan does not find it.
 */
@SpringBootApplication
public class CounterApplication {

	public static void main(String[] args) {
		System.exit(SpringApplication.exit(SpringApplication.run(CounterApplication.class, args)));
	}

	@Bean
	ApplicationRunner incrementer(CounterService counter, @Value("${counter.threads}") int threads,
			@Value("${counter.iterations}") int iterations, @Value("${counter.mode:sync}") String mode) {
		return (args) -> {
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					try {
						for (int i = 0; i < iterations; i++) {
							switch (mode) {
								case "sync" -> counter.increment();
								case "future" -> counter.incrementLater().get(60, TimeUnit.SECONDS);
								case "mono" -> counter.incrementReactively().block(Duration.ofSeconds(60));
								case "pairs" -> {
									// Half the calls name the keys in one order, half in
									// the other
									if (i % 2 == 0) {
										counter.incrementPair("a", "b");
									}
									else {
										counter.incrementPair("b", "a");
									}
								}
								default -> throw new IllegalArgumentException("Unknown counter.mode " + mode);
							}
						}
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join(120_000);
			}
			if (!failures.isEmpty()) {
				throw new IllegalStateException("Increment failed", failures.get(0));
			}
		};
	}

	/**
	 * Read-modify-write of shared files, made safe only by the lock: on the calling
	 * thread, on another thread after the method returned (a CompletableFuture), on
	 * subscription (a Mono), or on two files under two keys.
	 */
	@Service
	public static class CounterService {

		private final Path file;

		private final ExecutorService executor = Executors.newCachedThreadPool();

		public CounterService(@Value("${counter.file}") Path file) {
			this.file = file;
		}

		@DistributedLock(key = "'counter'")
		public void increment() throws Exception {
			readModifyWrite(this.file);
		}

		@DistributedLock(key = "'counter'")
		public CompletableFuture<Void> incrementLater() {
			return CompletableFuture.runAsync(() -> readModifyWrite(this.file), this.executor);
		}

		@DistributedLock(key = "'counter'")
		public Mono<Void> incrementReactively() {
			return Mono.fromRunnable(() -> readModifyWrite(this.file)).subscribeOn(Schedulers.boundedElastic()).then();
		}

		@DistributedLock(key = "{'pair:' + #first, 'pair:' + #second}")
		public void incrementPair(String first, String second) {
			readModifyWrite(pairFile(first));
			readModifyWrite(pairFile(second));
		}

		private Path pairFile(String name) {
			return this.file.resolveSibling(this.file.getFileName() + "-" + name);
		}

		private static void readModifyWrite(Path file) {
			try {
				int value = Integer.parseInt(Files.readString(file).trim());
				Thread.sleep(0, 200_000);
				Files.writeString(file, Integer.toString(value + 1));
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
