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
 * any synchronization but {@code @DistributedLock}, through each method kind that
 * {@code counter.modes} names, all at once: {@code sync}, {@code future} and {@code mono}
 * on one key (a file each), and {@code pairs} on two keys (two files). Outside the shop's
 * package, so the shop's component scan does not find it.
 */
@SpringBootApplication
public class CounterApplication {

	public static void main(String[] args) {
		System.exit(SpringApplication.exit(SpringApplication.run(CounterApplication.class, args)));
	}

	/**
	 * The file that a mode's calls increment: {@code counter.file} and the mode's name.
	 */
	public static Path file(Path base, String mode) {
		return base.resolveSibling(base.getFileName() + "-" + mode);
	}

	@Bean
	ApplicationRunner incrementer(CounterService counter, @Value("${counter.file}") Path base,
			@Value("${counter.threads}") int threads, @Value("${counter.iterations}") int iterations,
			@Value("${counter.modes:sync}") List<String> modes) {
		return (args) -> {
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<Thread> workers = new ArrayList<>();
			for (String mode : modes) {
				Path file = file(base, mode);
				for (int t = 0; t < threads; t++) {
					Thread worker = new Thread(() -> {
						try {
							for (int i = 0; i < iterations; i++) {
								increment(counter, mode, file, i);
							}
						}
						catch (Throwable ex) {
							failures.add(ex);
						}
					});
					workers.add(worker);
					worker.start();
				}
			}
			for (Thread worker : workers) {
				worker.join(120_000);
			}
			if (!failures.isEmpty()) {
				throw new IllegalStateException("Increment failed", failures.get(0));
			}
		};
	}

	private static void increment(CounterService counter, String mode, Path file, int i) throws Exception {
		switch (mode) {
			case "sync" -> counter.increment(file);
			case "future" -> counter.incrementLater(file).get(60, TimeUnit.SECONDS);
			case "mono" -> counter.incrementReactively(file).block(Duration.ofSeconds(60));
			case "pairs" -> {
				// Half the calls name the keys in one order, half in the other
				if (i % 2 == 0) {
					counter.incrementPair(file, "a", "b");
				}
				else {
					counter.incrementPair(file, "b", "a");
				}
			}
			default -> throw new IllegalArgumentException("Unknown counter mode " + mode);
		}
	}

	/**
	 * Read-modify-write of shared files, made safe only by the lock: on the calling
	 * thread, on another thread after the method returned (a CompletableFuture), on
	 * subscription (a Mono), or on two files under two keys.
	 */
	@Service
	public static class CounterService {

		private final ExecutorService executor = Executors.newCachedThreadPool();

		@DistributedLock(key = "'counter'")
		public void increment(Path file) throws Exception {
			readModifyWrite(file);
		}

		@DistributedLock(key = "'counter'")
		public CompletableFuture<Void> incrementLater(Path file) {
			return CompletableFuture.runAsync(() -> readModifyWrite(file), this.executor);
		}

		@DistributedLock(key = "'counter'")
		public Mono<Void> incrementReactively(Path file) {
			return Mono.fromRunnable(() -> readModifyWrite(file)).subscribeOn(Schedulers.boundedElastic()).then();
		}

		@DistributedLock(key = "{'pair:' + #first, 'pair:' + #second}")
		public void incrementPair(Path file, String first, String second) {
			readModifyWrite(file(file, first));
			readModifyWrite(file(file, second));
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
