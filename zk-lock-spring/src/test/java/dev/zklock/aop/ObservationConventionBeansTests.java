package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.template.observation.DefaultZkLockAcquireObservationConvention;
import dev.zklock.template.observation.DefaultZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockAcquireObservationConvention;
import dev.zklock.template.observation.ZkLockHeldObservationConvention;
import dev.zklock.template.observation.ZkLockObservationContext;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without Spring Boot and without a template bean, {@code @DistributedLock}'s own
 * template names and tags its observations with the application's convention beans.
 */
@Timeout(60)
class ObservationConventionBeansTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void theAdvisorsOwnTemplateUsesTheConventionBeans() throws Exception {
		ObservationRegistry observations = ObservationRegistry.create();
		List<String> stopped = new CopyOnWriteArrayList<>();
		observations.observationConfig().observationHandler(new ObservationHandler<ZkLockObservationContext>() {

			@Override
			public void onStop(ZkLockObservationContext context) {
				stopped.add(context.getName() + " "
						+ context.getLowCardinalityKeyValues()
							.stream()
							.map((keyValue) -> keyValue.getKey() + "=" + keyValue.getValue())
							.sorted()
							.toList());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof ZkLockObservationContext;
			}

		});
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk, (c) -> {
			c.registerBean(ObservationRegistry.class, () -> observations);
			c.registerBean(ZkLockAcquireObservationConvention.class, TeamAcquireConvention::new);
			c.registerBean(ZkLockHeldObservationConvention.class, TeamHeldConvention::new);
			c.registerBean(Ledger.class);
		})) {
			context.getBean(Ledger.class).post("a-1");
		}
		assertThat(stopped).containsExactly(
				"zklock.acquire [kind=exclusive, lock.name=ledger, outcome=acquired, team=ledger]",
				"zklock.held [kind=exclusive, lock.name=ledger, outcome=released, team=ledger]");
	}

	static class TeamAcquireConvention extends DefaultZkLockAcquireObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
			return super.getLowCardinalityKeyValues(context).and("team", "ledger");
		}

	}

	static class TeamHeldConvention extends DefaultZkLockHeldObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
			return super.getLowCardinalityKeyValues(context).and("team", "ledger");
		}

	}

	public static class Ledger {

		@DistributedLock(key = "'ledger:' + #account", name = "ledger")
		public void post(String account) {
		}

	}

}
