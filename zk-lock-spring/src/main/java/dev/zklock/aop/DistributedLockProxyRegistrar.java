package dev.zklock.aop;

import dev.zklock.annotation.EnableDistributedLocks;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers an auto-proxy creator for {@code @DistributedLock}, if the application has
 * none yet, as Spring's {@code AutoProxyRegistrar} does for
 * {@code @EnableTransactionManagement}, so that locked beans are proxied also when
 * nothing else asks for proxies. Switches it to class-based proxies when
 * {@link EnableDistributedLocks#proxyTargetClass()} asks for it; imported without
 * {@code @EnableDistributedLocks} (by the Spring Boot auto-configuration), when the
 * {@value #PROXY_TARGET_CLASS_PROPERTY} property does, which is the default, as in Spring
 * Boot.
 *
 * @author zk-lock
 */
public final class DistributedLockProxyRegistrar implements ImportBeanDefinitionRegistrar {

	/**
	 * The property that chooses class-based proxies when {@code @EnableDistributedLocks}
	 * does not: Spring Boot's.
	 */
	public static final String PROXY_TARGET_CLASS_PROPERTY = "spring.aop.proxy-target-class";

	private final Environment environment;

	/**
	 * Spring passes the environment when it instantiates an imported registrar.
	 * @param environment the environment
	 */
	public DistributedLockProxyRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		if (proxyTargetClass(importingClassMetadata)) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

	private boolean proxyTargetClass(AnnotationMetadata importingClassMetadata) {
		// var: the map's value type is @Nullable in Spring's signature, which javac 17
		// does not read back
		var attributes = importingClassMetadata.getAnnotationAttributes(EnableDistributedLocks.class.getName());
		if (attributes != null) {
			return Boolean.TRUE.equals(attributes.get("proxyTargetClass"));
		}
		return this.environment.getProperty(PROXY_TARGET_CLASS_PROPERTY, Boolean.class, true);
	}

}
