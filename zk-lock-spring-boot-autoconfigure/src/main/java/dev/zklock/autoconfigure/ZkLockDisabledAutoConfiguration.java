package dev.zklock.autoconfigure;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.annotation.DistributedLock;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * When {@code zklock.enabled=false}, says once at startup how many
 * {@code @DistributedLock} methods will run without a lock, and in which beans: switching
 * the library off must not silently switch off what users believe protects their code.
 *
 * @author zk-lock
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "zklock.enabled", havingValue = false)
public final class ZkLockDisabledAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockDisabledAutoConfiguration.class);

	@Bean
	static SmartInitializingSingleton zkLockDisabledWarning(ConfigurableListableBeanFactory beanFactory) {
		return () -> warnAboutUnlockedMethods(beanFactory);
	}

	private static void warnAboutUnlockedMethods(ConfigurableListableBeanFactory beanFactory) {
		Set<Method> methods = new LinkedHashSet<>();
		Set<String> beans = new TreeSet<>();
		for (String name : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanFactory.getType(name, false);
			if (type == null) {
				continue;
			}
			Class<?> userClass = ClassUtils.getUserClass(type);
			int before = methods.size();
			// The search covers the interfaces and superclasses a method overrides
			ReflectionUtils.doWithMethods(userClass, (method) -> {
				if (!method.isBridge() && AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)) {
					methods.add(method);
				}
			});
			if (methods.size() > before) {
				beans.add(name);
			}
		}
		if (!methods.isEmpty()) {
			logger.warn(
					"zklock.enabled=false: {} @DistributedLock method{} will run WITHOUT a distributed lock (beans: {})",
					methods.size(), (methods.size() == 1) ? "" : "s", String.join(", ", beans));
		}
	}

}
