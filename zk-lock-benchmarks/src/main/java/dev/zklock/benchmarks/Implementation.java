package dev.zklock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * A lock implementation under test, set up fresh (own client, own path) for one run.
 */
abstract class Implementation implements AutoCloseable {

	private final String name;

	private final List<AutoCloseable> resources = new ArrayList<>();

	Implementation(String name) {
		this.name = name;
	}

	String name() {
		return this.name;
	}

	/**
	 * The handle thread {@code index} uses.
	 */
	abstract Contender contender(int index) throws Exception;

	/**
	 * The count reached: the threads' own counter, unless the implementation keeps it.
	 */
	int count(int[] threadsCounter) {
		return threadsCounter[0];
	}

	<T extends AutoCloseable> T track(T resource) {
		this.resources.add(0, resource);
		return resource;
	}

	CuratorFramework newClient(String connectString) throws InterruptedException {
		CuratorFramework client = track(
				CuratorFrameworkFactory.newClient(connectString, 30_000, 15_000, new ExponentialBackoffRetry(100, 3)));
		client.start();
		client.blockUntilConnected();
		return client;
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

	/**
	 * The implementations selected by {@code -Dbench.implementations} (substrings, comma
	 * separated), all by default.
	 */
	static List<String> selected() {
		String filter = System.getProperty("bench.implementations", "");
		if (filter.isBlank()) {
			return names();
		}
		List<String> parts = List.of(filter.split(","));
		return names().stream().filter((name) -> parts.stream().anyMatch(name::contains)).toList();
	}

	static List<String> names() {
		return List.of("naive ephemeral node + exists watch (herd)", "Curator InterProcessMutex, one shared instance",
				"Curator InterProcessMutex, one per thread",
				"Spring Integration ZookeeperLockRegistry "
						+ ZookeeperLockRegistry.class.getPackage().getImplementationVersion(),
				"zk-lock engine (ZkLock)", "zk-lock @DistributedLock", "in-JVM fair ReentrantLock (floor)");
	}

	static Implementation create(String name, String connectString, String path) throws Exception {
		return switch (names().indexOf(name)) {
			case 0 -> new Implementation(name) {
				private final NaiveHerdLock lock = new NaiveHerdLock(newClient(connectString), path);

				@Override
				Contender contender(int index) {
					return of(this.lock::lock, this.lock::unlock);
				}
			};
			case 1 -> new Implementation(name) {
				private final InterProcessMutex mutex = new InterProcessMutex(newClient(connectString), path);

				@Override
				Contender contender(int index) {
					return of(this.mutex::acquire, this.mutex::release);
				}
			};
			case 2 -> new Implementation(name) {
				private final CuratorFramework client = newClient(connectString);

				@Override
				Contender contender(int index) {
					InterProcessMutex mutex = new InterProcessMutex(this.client, path);
					return of(mutex::acquire, mutex::release);
				}
			};
			case 3 -> new Implementation(name) {
				private final ZookeeperLockRegistry registry = new ZookeeperLockRegistry(newClient(connectString),
						path);

				@Override
				Contender contender(int index) {
					Lock lock = this.registry.obtain("k");
					return of(lock::lock, lock::unlock);
				}
			};
			case 4 -> new Implementation(name) {
				private final ZkLockRegistry registry = track(
						new ZkLockRegistry(newClient(connectString), ZkLockOptions.defaults().withRootPath(path)));

				@Override
				Contender contender(int index) {
					Lock lock = this.registry.obtain("k");
					return of(lock::lock, lock::unlock);
				}
			};
			case 5 -> new Implementation(name) {
				private final ConfigurableApplicationContext context = track(BenchContext.start(connectString));

				private final AnnotatedCounter counter = this.context.getBean(AnnotatedCounter.class);

				@Override
				Contender contender(int index) {
					// The annotated method is the whole critical section: lock() runs it,
					// unlock() has nothing to do
					return of(this.counter::increment, () -> {
					});
				}

				@Override
				int count(int[] threadsCounter) {
					return this.counter.value();
				}
			};
			case 6 -> new Implementation(name) {
				private final ReentrantLock lock = new ReentrantLock(true);

				@Override
				Contender contender(int index) {
					return of(this.lock::lock, this.lock::unlock);
				}
			};
			default -> throw new IllegalArgumentException(name);
		};
	}

	interface Action {

		void run() throws Exception;

	}

	static Contender of(Action lock, Action unlock) {
		return new Contender() {
			@Override
			public void lock() throws Exception {
				lock.run();
			}

			@Override
			public void unlock() throws Exception {
				unlock.run();
			}
		};
	}

}
