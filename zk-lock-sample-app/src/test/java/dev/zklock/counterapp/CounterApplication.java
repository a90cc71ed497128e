package dev.zklock.counterapp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.zklock.annotation.DistributedLock;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;

/**
 * A minimal application on the starter, run in several JVMs by
 * {@code StarterCrossProcessTests}: its threads increment a number kept in a file, without any
 * synchronization but {@code @DistributedLock(key = "'counter'")}. Outside the shop's package, so
 * the shop's component scan does not find it.
 */
@SpringBootApplication
public class CounterApplication {

	public static void main(String[] args) {
		System.exit(SpringApplication.exit(SpringApplication.run(CounterApplication.class, args)));
	}

	@Bean
	ApplicationRunner incrementer(CounterService counter, @Value("${counter.threads}") int threads,
			@Value("${counter.iterations}") int iterations) {
		return (args) -> {
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					try {
						for (int i = 0; i < iterations; i++) {
							counter.increment();
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
	 * Read-modify-write of a shared file, made safe only by the lock.
	 */
	@Service
	public static class CounterService {

		private final Path file;

		public CounterService(@Value("${counter.file}") Path file) {
			this.file = file;
		}

		@DistributedLock(key = "'counter'")
		public void increment() throws Exception {
			int value = Integer.parseInt(Files.readString(this.file).trim());
			Thread.sleep(0, 200_000);
			Files.writeString(this.file, Integer.toString(value + 1));
		}

	}

}
