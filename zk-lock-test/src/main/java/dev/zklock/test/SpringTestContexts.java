package dev.zklock.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.junit.jupiter.SpringExtension;

import dev.zklock.core.registry.ZkLockRegistry;

/**
 * The application's registry in a Spring test's application context. Apart from
 * {@link ZkLockTestKit} so that a plain test class needs no Spring on its class path.
 */
final class SpringTestContexts {

	private SpringTestContexts() {
	}

	static ZkLockRegistry registry(ExtensionContext test) {
		ApplicationContext context = SpringExtension.getApplicationContext(test);
		ZkLockRegistry registry = context.getBeanProvider(ZkLockRegistry.class).getIfAvailable();
		if (registry == null) {
			throw new IllegalStateException("The application context of " + test.getRequiredTestClass().getName()
					+ " has no ZkLockRegistry for the kit to test: is zk-lock-spring-boot-starter on the class path, "
					+ "and zklock.enabled not false?");
		}
		return registry;
	}

}
