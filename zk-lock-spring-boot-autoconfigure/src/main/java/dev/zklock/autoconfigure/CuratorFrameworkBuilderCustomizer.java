package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Callback interface that can be implemented by beans wishing to customize the
 * {@link CuratorFrameworkFactory.Builder} before the auto-configured
 * {@code CuratorFramework} is built. Customizers run in
 * {@link org.springframework.core.Ordered order}, after the {@code zklock.*} properties
 * are applied.
 *
 * @author zk-lock
 */
@FunctionalInterface
public interface CuratorFrameworkBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder to customize
	 */
	void customize(CuratorFrameworkFactory.Builder builder);

}
