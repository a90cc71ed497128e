package dev.zklock.test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Points the application context of a test class that registers a {@link ZkLockTestKit}
 * at the kit: its {@code zklock.connect-string} becomes the kit's proxy, its session
 * timeout the kit's, ahead of every other property source, as
 * {@code @DynamicPropertySource} would. Registered in {@code META-INF/spring.factories};
 * test classes without a kit are left alone.
 *
 * @author zk-lock
 */
public final class SpringKitContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		ZkLockTestKit kit = ZkLockTestKit.of(testClass);
		if (kit == null) {
			return null;
		}
		String connectString = kit.attachSpringApplication(SpringTestContexts::registry);
		Duration session = kit.sessionTimeout();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("zklock.connect-string", connectString);
		properties.put("zklock.session-timeout", session.toMillis() + "ms");
		properties.put("zklock.connection-timeout", Math.min(2000, session.toMillis()) + "ms");
		// The kit is the application's ZooKeeper: no embedded server of its own
		properties.put("zklock.embedded.enabled", "false");
		return new KitProperties(properties);
	}

	/**
	 * The kit's properties, first among the environment's property sources. Equal for
	 * equal properties, so that test classes on the same kit server share a cached
	 * context.
	 */
	private record KitProperties(Map<String, Object> properties) implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("zk-lock-test", this.properties));
		}

	}

}
