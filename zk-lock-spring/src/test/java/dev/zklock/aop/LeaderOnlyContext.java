package dev.zklock.aop;

import java.time.Duration;
import java.util.Map;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.annotation.EnableDistributedLocks;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * A plain Spring application (no Boot) with {@code @EnableDistributedLocks}, a registry
 * and a {@link ZkLeadership} on a real in-process ZooKeeper: one instance of an
 * application whose {@code @LeaderOnly} beans name the group {@code ${test.group}}.
 */
final class LeaderOnlyContext {

	/** How long a hand-off waits for leader work in these tests. */
	static final Duration HAND_OFF_TIMEOUT = Duration.ofSeconds(10);

	private LeaderOnlyContext() {
	}

	/**
	 * Start an instance.
	 * @param zk the server
	 * @param group the value of {@code test.group}
	 * @param beans the test's beans
	 * @return the refreshed context
	 */
	static AnnotationConfigApplicationContext start(InProcessZooKeeper zk, String group, Class<?>... beans)
			throws Exception {
		return startWith(LeadershipConfiguration.class, zk, group, beans);
	}

	static AnnotationConfigApplicationContext startWith(Class<?> configuration, InProcessZooKeeper zk, String group,
			Class<?>... beans) throws Exception {
		CuratorFramework client = zk.newClient();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("test.group", group)));
		context.registerBean(CuratorFramework.class, () -> client,
				(definition) -> definition.setDestroyMethodName("close"));
		context.register(configuration);
		for (Class<?> bean : beans) {
			context.registerBean(bean);
		}
		try {
			context.refresh();
		}
		catch (RuntimeException ex) {
			context.close();
			throw ex;
		}
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	static class LeadershipConfiguration {

		@Bean(destroyMethod = "close")
		ZkLockRegistry zkLockRegistry(CuratorFramework client) {
			return new ZkLockRegistry(client);
		}

		@Bean
		ZkLeadership zkLeadership(ZkLockRegistry registry) {
			ZkLeadership leadership = new ZkLeadership(registry);
			leadership.setHandOffTimeout(HAND_OFF_TIMEOUT);
			return leadership;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	static class NoLeadershipConfiguration {

		@Bean(destroyMethod = "close")
		ZkLockRegistry zkLockRegistry(CuratorFramework client) {
			return new ZkLockRegistry(client);
		}

	}

}
