package dev.zklock.annotation;

import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * What {@link EnableDistributedLocks @EnableDistributedLocks} imports: the auto-proxy
 * registration and the advisor's configuration, both in {@code dev.zklock.aop}. Named
 * rather than referenced, as Spring Framework's {@code CachingConfigurationSelector}
 * names the configurations of the packages above it (AspectJ's, JCache's), because
 * {@code dev.zklock.aop} reads this package's annotations: this package must not need it
 * back, not even through an annotation's class value.
 *
 * @author zk-lock
 */
final class DistributedLocksConfigurationSelector implements ImportSelector {

	/** {@code dev.zklock.aop.DistributedLockProxyRegistrar}. */
	static final String PROXY_REGISTRAR_CLASS_NAME = "dev.zklock.aop.DistributedLockProxyRegistrar";

	/** {@code dev.zklock.aop.ProxyDistributedLockConfiguration}. */
	static final String PROXY_CONFIGURATION_CLASS_NAME = "dev.zklock.aop.ProxyDistributedLockConfiguration";

	@Override
	public String[] selectImports(AnnotationMetadata importingClassMetadata) {
		return new String[] { PROXY_REGISTRAR_CLASS_NAME, PROXY_CONFIGURATION_CLASS_NAME };
	}

}
