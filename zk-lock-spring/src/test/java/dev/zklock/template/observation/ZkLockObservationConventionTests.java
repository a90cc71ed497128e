package dev.zklock.template.observation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.template.LockMode;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.LockAcquisitionException;
import dev.zklock.core.ZkLease;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.LockDefinition;
import dev.zklock.template.ZkLockTemplate;
import dev.zklock.template.observation.ZkLockObservationDocumentation.LowCardinalityKeyNames;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The names and tags of the template's observations: the default conventions give exactly
 * the ones metrics and dashboards were built on, for every kind and outcome; custom ones,
 * set on the template or registered globally, replace them for their own observation
 * only.
 */
@Timeout(60)
class ZkLockObservationConventionTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final Recorder recorder = new Recorder();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private ZkLockRegistry registry;

	/** Another participant, with a session of its own, to keep locks busy. */
	private ZkLockRegistry other;

	private ZkLockTemplate template;

	@BeforeEach
	void start() throws Exception {
		this.observations.observationConfig().observationHandler(this.recorder);
		this.registry = this.zk.newRegistry();
		this.other = this.zk.newRegistry();
		this.template = new ZkLockTemplate(this.registry, this.observations);
	}

	@AfterEach
	void stop() {
		this.template.close();
		this.registry.close();
		this.other.close();
	}

	@Test
	void defaultConventionsNameAndTagAcquiredLocksOfEveryKindAsBefore() {
		Map<String, LockDefinition> kinds = Map.of("exclusive", LockDefinition.named("orders"), "read",
				LockDefinition.named("orders").withMode(LockMode.READ), "write",
				LockDefinition.named("orders").withMode(LockMode.WRITE), "semaphore",
				LockDefinition.named("orders").withPermits(2));
		kinds.forEach((kind, definition) -> {
			this.recorder.clear();
			String key = "acquired-" + kind;
			assertThat(this.template.execute(definition, List.of(key), () -> "done")).isEqualTo("done");
			assertThat(this.recorder.events).containsExactly(
					"start zklock.acquire {kind=" + kind + ", lock.name=orders}",
					"stop zklock.acquire {kind=" + kind + ", lock.name=orders, outcome=acquired}",
					"start zklock.held {kind=" + kind + ", lock.name=orders}",
					"stop zklock.held {kind=" + kind + ", lock.name=orders, outcome=released}");
			// The key reaches the context, for custom conventions, and is never a tag
			assertThat(this.recorder.contexts).allSatisfy((context) -> {
				assertThat(context.getKeys()).containsExactly(key);
				assertThat(context.getHighCardinalityKeyValues()).isEmpty();
			});
			assertThat(this.recorder.contexts).extracting(ZkLockObservationContext::getDocumentation)
				.containsExactly(ZkLockObservationDocumentation.LOCK_ACQUIRE, ZkLockObservationDocumentation.LOCK_HELD);
		});
	}

	@Test
	void defaultConventionTagsABusyLockOfEveryKindWithItsBusyOutcomeAndTheTemplateStillThrows() throws Exception {
		for (String kind : List.of("exclusive", "read", "write", "semaphore")) {
			for (LockDefinition.BusyOutcome busyOutcome : LockDefinition.BusyOutcome.values()) {
				String key = "busy-" + kind + "-" + busyOutcome;
				LockDefinition definition = definition(kind).withWaitAtMost(Duration.ZERO).withBusyOutcome(busyOutcome);
				AtomicBoolean ran = new AtomicBoolean();
				Runnable release = holdElsewhere(kind, key);
				this.recorder.clear();
				try {
					// Only the count changes: skipping or falling back is the caller's
					assertThatExceptionOfType(LockAcquisitionException.class)
						.isThrownBy(() -> this.template.execute(definition, List.of(key), () -> ran.getAndSet(true)))
						.satisfies((ex) -> assertThat(ex.getReason())
							.isEqualTo(LockAcquisitionException.Reason.HELD_REMOTELY));
				}
				finally {
					release.run();
				}
				assertThat(ran).as("%s lock busy, %s: the task ran", kind, busyOutcome).isFalse();
				assertThat(this.recorder.events).as("%s lock busy, %s", kind, busyOutcome)
					.containsExactly("start zklock.acquire {kind=" + kind + ", lock.name=busy}",
							"stop zklock.acquire {kind=" + kind + ", lock.name=busy, outcome=" + busyOutcome.outcome()
									+ "}");
			}
		}
		assertThat(LockDefinition.BusyOutcome.values()).extracting(LockDefinition.BusyOutcome::outcome)
			.containsExactly("timeout", "skipped", "fallback");
	}

	@Test
	void defaultConventionTagsAFailedWaitOfEveryKindAsAnError() {
		for (String kind : List.of("exclusive", "read", "write", "semaphore")) {
			this.recorder.clear();
			// Not busy: the wait fails for another reason, here an interrupted thread
			Thread.currentThread().interrupt();
			try {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> this.template.execute(definition(kind), List.of("error-" + kind), () -> "never"))
					.satisfies(
							(ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.INTERRUPTED));
			}
			finally {
				Thread.interrupted();
			}
			assertThat(this.recorder.events).as("%s lock", kind)
				.containsExactly("start zklock.acquire {kind=" + kind + ", lock.name=busy}",
						"stop zklock.acquire {kind=" + kind + ", lock.name=busy, outcome=error}");
		}
	}

	@Test
	void customConventionsSetOnTheTemplateReplaceTheDefaults() {
		this.template.setAcquireObservationConvention(new DefaultZkLockAcquireObservationConvention() {

			@Override
			public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("team", "billing");
			}

		});
		this.template.setHeldObservationConvention(new ZkLockHeldObservationConvention() {

			@Override
			public String getName() {
				return "billing.lock.held";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
				return KeyValues.of("lock", context.getLockName());
			}

			@Override
			public KeyValues getHighCardinalityKeyValues(ZkLockObservationContext context) {
				return KeyValues.of("lock.keys", String.join(",", context.getKeys()));
			}

		});
		this.template.execute("invoices", List.of("invoice:1", "invoice:2"), null, () -> "done");
		assertThat(this.recorder.events).containsExactly(
				"start zklock.acquire {kind=exclusive, lock.name=invoices, team=billing}",
				"stop zklock.acquire {kind=exclusive, lock.name=invoices, outcome=acquired, team=billing}",
				"start billing.lock.held {lock=invoices}", "stop billing.lock.held {lock=invoices}");
		assertThat(this.recorder.contexts.get(1).getHighCardinalityKeyValue("lock.keys").getValue())
			.isEqualTo("invoice:1,invoice:2");
		// Back to the defaults
		this.template.setAcquireObservationConvention(null);
		this.template.setHeldObservationConvention(null);
		this.recorder.clear();
		this.template.execute("invoices", List.of("invoice:1"), null, () -> "done");
		assertThat(this.recorder.events).containsExactly("start zklock.acquire {kind=exclusive, lock.name=invoices}",
				"stop zklock.acquire {kind=exclusive, lock.name=invoices, outcome=acquired}",
				"start zklock.held {kind=exclusive, lock.name=invoices}",
				"stop zklock.held {kind=exclusive, lock.name=invoices, outcome=released}");
	}

	@Test
	void aGlobalConventionForOneObservationLeavesTheOtherAlone() {
		class GlobalHeld extends DefaultZkLockHeldObservationConvention
				implements GlobalObservationConvention<ZkLockObservationContext> {

			@Override
			public KeyValues getLowCardinalityKeyValues(ZkLockObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("global", "yes");
			}

		}
		this.observations.observationConfig().observationConvention(new GlobalHeld());
		ZkLease lease = this.template.acquireLease("invoices", List.of("invoice:1"), null);
		lease.release();
		assertThat(this.recorder.events).containsExactly("start zklock.acquire {kind=exclusive, lock.name=invoices}",
				"stop zklock.acquire {kind=exclusive, lock.name=invoices, outcome=acquired}",
				"start zklock.held {global=yes, kind=exclusive, lock.name=invoices}",
				"stop zklock.held {global=yes, kind=exclusive, lock.name=invoices, outcome=released}");
	}

	@Test
	void documentationDescribesTheDefaults() {
		assertThat(ZkLockObservationDocumentation.LOCK_ACQUIRE.getDefaultConvention())
			.isEqualTo(DefaultZkLockAcquireObservationConvention.class);
		assertThat(ZkLockObservationDocumentation.LOCK_HELD.getDefaultConvention())
			.isEqualTo(DefaultZkLockHeldObservationConvention.class);
		assertThat(ZkLockObservationDocumentation.LOCK_ACQUIRE.getLowCardinalityKeyNames())
			.extracting(io.micrometer.common.docs.KeyName::asString)
			.containsExactly("lock.name", "kind", "outcome");
		assertThat(ZkLockObservationDocumentation.LOCK_HELD.getLowCardinalityKeyNames())
			.extracting(io.micrometer.common.docs.KeyName::asString)
			.containsExactly("lock.name", "kind", "outcome");
		assertThat(new DefaultZkLockAcquireObservationConvention().getName())
			.isEqualTo(ZkLockTemplate.ACQUIRE_OBSERVATION);
		assertThat(new DefaultZkLockHeldObservationConvention().getName()).isEqualTo(ZkLockTemplate.HELD_OBSERVATION);
		ZkLockObservationContext held = new ZkLockObservationContext(ZkLockObservationDocumentation.LOCK_HELD, "n",
				"read", List.of("k"));
		// Handlers are picked before the convention names the observation: by name, they
		// find it still
		assertThat(held.getName()).isEqualTo(ZkLockTemplate.HELD_OBSERVATION);
		assertThat(new DefaultZkLockHeldObservationConvention().supportsContext(held)).isTrue();
		assertThat(new DefaultZkLockAcquireObservationConvention().supportsContext(held)).isFalse();
		assertThat(new DefaultZkLockAcquireObservationConvention().supportsContext(new Observation.Context()))
			.isFalse();
		assertThat(LowCardinalityKeyNames.OUTCOME.withValue("acquired")).isEqualTo(KeyValue.of("outcome", "acquired"));
	}

	private static LockDefinition definition(String kind) {
		LockDefinition busy = LockDefinition.named("busy");
		return switch (kind) {
			case "read" -> busy.withMode(LockMode.READ);
			case "write" -> busy.withMode(LockMode.WRITE);
			case "semaphore" -> busy.withPermits(1);
			default -> busy;
		};
	}

	/**
	 * Have the other participant take what keeps a lock of this kind busy.
	 * @return gives it back
	 */
	private Runnable holdElsewhere(String kind, String key) {
		if (kind.equals("semaphore")) {
			ZkLease permit = this.other.obtainSemaphore(key, 1).acquire(Duration.ofSeconds(20));
			return permit::release;
		}
		ZkLock lock = kind.equals("exclusive") ? this.other.obtain(key) : this.other.obtainReadWrite(key).writeLock();
		lock.lock();
		return lock::unlock;
	}

	/**
	 * Records each start and stop with the observation's name and tags at that moment:
	 * what Micrometer's meter handler makes the long task timer and the timer from.
	 */
	static final class Recorder implements ObservationHandler<ZkLockObservationContext> {

		final List<String> events = new CopyOnWriteArrayList<>();

		final List<ZkLockObservationContext> contexts = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(ZkLockObservationContext context) {
			this.contexts.add(context);
			this.events.add("start " + describe(context));
		}

		@Override
		public void onStop(ZkLockObservationContext context) {
			this.events.add("stop " + describe(context));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof ZkLockObservationContext;
		}

		void clear() {
			this.events.clear();
			this.contexts.clear();
		}

		private static String describe(Observation.Context context) {
			Map<String, String> tags = new TreeMap<>();
			context.getLowCardinalityKeyValues()
				.forEach((keyValue) -> tags.put(keyValue.getKey(), keyValue.getValue()));
			return context.getName() + " " + tags;
		}

	}

}
