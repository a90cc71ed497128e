package dev.zklock.aop;

import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.annotation.EnableDistributedLocks;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ZkLockTestKit;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A plain Spring application (no Boot) with {@code @EnableDistributedLocks} and a
 * registry on a real in-process ZooKeeper, for the tests of this module.
 */
final class LockedContext {

	private LockedContext() {
	}

	/**
	 * Start a context with the given beans.
	 * @param zk the server
	 * @param customizer registers the test's beans and configuration classes
	 * @return the refreshed context
	 */
	static AnnotationConfigApplicationContext start(InProcessZooKeeper zk,
			Consumer<AnnotationConfigApplicationContext> customizer) throws Exception {
		CuratorFramework client = zk.newClient();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(CuratorFramework.class, () -> client);
		context.register(LockConfiguration.class);
		customizer.accept(context);
		context.refresh();
		return context;
	}

	/**
	 * Start a context with the given beans on the kit's application registry, so that the
	 * kit's faults reach it. The kit closes the registry after the test.
	 * @param zk the kit
	 * @param customizer registers the test's beans and configuration classes
	 * @return the refreshed context
	 */
	static AnnotationConfigApplicationContext start(ZkLockTestKit zk,
			Consumer<AnnotationConfigApplicationContext> customizer) {
		ZkLockRegistry registry = zk.registry();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(CuratorFramework.class, registry::getClient);
		context.registerBean(ZkLockRegistry.class, () -> registry);
		context.register(KitConfiguration.class);
		customizer.accept(context);
		context.refresh();
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	static class KitConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks(proxyTargetClass = true)
	static class LockConfiguration {

		@Bean(destroyMethod = "close")
		ZkLockRegistry zkLockRegistry(CuratorFramework client) {
			return new ZkLockRegistry(client);
		}

	}

}
