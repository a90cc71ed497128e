package dev.zklock.annotation;

import dev.zklock.aop.DistributedLockProxyRegistrar;
import dev.zklock.aop.ProxyDistributedLockConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.core.type.AnnotationMetadata;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The names {@link DistributedLocksConfigurationSelector} imports are those of the
 * {@code aop} classes: main code names them, so that {@code dev.zklock.annotation} does
 * not depend on {@code dev.zklock.aop}; a test may.
 */
class DistributedLocksConfigurationSelectorTests {

	@Test
	void selectsTheProxyRegistrarAndTheAdvisorsConfiguration() {
		String[] imports = new DistributedLocksConfigurationSelector()
			.selectImports(AnnotationMetadata.introspect(DistributedLocksConfigurationSelectorTests.class));
		assertThat(imports).containsExactly(DistributedLockProxyRegistrar.class.getName(),
				ProxyDistributedLockConfiguration.class.getName());
	}

}
