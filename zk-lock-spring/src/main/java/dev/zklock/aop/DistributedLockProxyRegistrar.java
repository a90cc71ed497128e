package dev.zklock.aop;

import dev.zklock.annotation.EnableDistributedLocks;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers an auto-proxy creator for {@code @DistributedLock}, if the application has
 * none yet, and switches it to class-based proxies when
 * {@link EnableDistributedLocks#proxyTargetClass()} asks for it, as Spring's
 * {@code AutoProxyRegistrar} does for {@code @EnableTransactionManagement}. Imported by
 * {@link EnableDistributedLocks @EnableDistributedLocks}.
 *
 * @author zk-lock
 */
public final class DistributedLockProxyRegistrar implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		// var: the map's value type is @Nullable in Spring's signature, which javac 17
		// does not read back
		var attributes = importingClassMetadata.getAnnotationAttributes(EnableDistributedLocks.class.getName());
		Object proxyTargetClass = (attributes != null) ? attributes.get("proxyTargetClass") : Boolean.FALSE;
		if (Boolean.TRUE.equals(proxyTargetClass)) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
