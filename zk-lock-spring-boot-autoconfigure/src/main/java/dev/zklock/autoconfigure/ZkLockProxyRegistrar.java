package dev.zklock.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists to apply the {@code @DistributedLock} advisor,
 * also when Spring Boot's own AOP auto-configuration is switched off, as
 * {@code @EnableTransactionManagement} does for {@code @Transactional}. Honours
 * {@code spring.aop.proxy-target-class} (default true: class-based proxies).
 *
 * @author zk-lock
 */
final class ZkLockProxyRegistrar implements ImportBeanDefinitionRegistrar {

	private final Environment environment;

	/**
	 * Spring passes the environment when it instantiates an imported registrar, so it is
	 * there from the start rather than set later through {@code EnvironmentAware}.
	 */
	ZkLockProxyRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		boolean proxyTargetClass = Binder.get(this.environment)
			.bind("spring.aop.proxy-target-class", Boolean.class)
			.orElse(true);
		if (proxyTargetClass) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
