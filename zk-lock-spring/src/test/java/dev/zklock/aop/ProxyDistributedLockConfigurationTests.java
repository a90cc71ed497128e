package dev.zklock.aop;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.InProcessZooKeeper;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code @DistributedLock} infrastructure is Spring's shape: the operation source,
 * the interceptor and the advisor are infrastructure beans of their own, and the advisor
 * is made of the other two beans.
 */
@Timeout(60)
class ProxyDistributedLockConfigurationTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void sourceInterceptorAndAdvisorAreInfrastructureBeans() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk,
				(c) -> c.registerBean(Inventory.class))) {
			for (String name : new String[] { "distributedLockOperationSource", "distributedLockInterceptor",
					"distributedLockAdvisor" }) {
				assertThat(context.getBeanDefinition(name).getRole()).as(name)
					.isEqualTo(BeanDefinition.ROLE_INFRASTRUCTURE);
			}
			DistributedLockAdvisor advisor = context.getBean(DistributedLockAdvisor.class);
			assertThat(advisor.getAdvice()).isSameAs(context.getBean("distributedLockInterceptor"));
			assertThat(advisor.operationSource()).isSameAs(context.getBean("distributedLockOperationSource"));
			assertThat(context.getBean(Inventory.class).restock("a")).isEqualTo("restocked a");
		}
	}

	public static class Inventory {

		@DistributedLock(key = "'stock:' + #sku")
		public String restock(String sku) {
			return "restocked " + sku;
		}

	}

}
