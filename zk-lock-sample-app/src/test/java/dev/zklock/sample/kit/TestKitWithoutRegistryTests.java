package dev.zklock.sample.kit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;

import dev.zklock.test.ZkLockTestKit;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The kit with an application that has no registry says so.
 */
@SpringBootTest(classes = KitApplication.class, properties = "zklock.enabled=false")
class TestKitWithoutRegistryTests {

	@RegisterExtension
	static ZkLockTestKit zk = ZkLockTestKit.create();

	@Test
	@Timeout(30)
	void theKitSaysTheApplicationHasNoRegistry() {
		assertThatIllegalStateException().isThrownBy(zk::registry)
			.withMessageContaining("has no ZkLockRegistry")
			.withMessageContaining("zklock.enabled");
		assertThatIllegalStateException().isThrownBy(zk::expireSession).withMessageContaining("has no ZkLockRegistry");
	}

}
