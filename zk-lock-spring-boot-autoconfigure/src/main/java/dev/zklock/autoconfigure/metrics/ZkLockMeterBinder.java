package dev.zklock.autoconfigure.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.curator.framework.state.ConnectionState;

import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.ZkLockRegistry;

/**
 * Binds the lock registry's state to Micrometer: {@code zklock.active} (locks held in this JVM),
 * {@code zklock.waiting} (threads waiting), {@code zklock.handoffs} (local hand-offs),
 * {@code zklock.lost} (locks lost while held) and {@code zklock.session.events} (connection
 * state changes, tagged {@code state}). Lock keys are never tags: they are unbounded.
 *
 * @author zk-lock
 */
public class ZkLockMeterBinder implements MeterBinder {

	private final ZkLockRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the lock registry
	 */
	public ZkLockMeterBinder(ZkLockRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		Gauge.builder("zklock.active", this.registry, ZkLockRegistry::heldCount)
			.description("Locks held by this JVM")
			.register(meterRegistry);
		Gauge.builder("zklock.waiting", this.registry, ZkLockRegistry::waitingCount)
			.description("Threads of this JVM waiting for a lock")
			.register(meterRegistry);
		Counter handoffs = Counter.builder("zklock.handoffs")
			.description("Locks passed to another thread of this JVM without a ZooKeeper round trip")
			.register(meterRegistry);
		Counter lost = Counter.builder("zklock.lost")
			.description("Locks whose ZooKeeper session expired while held")
			.register(meterRegistry);
		this.registry.addListener(new ZkLockListener() {

			@Override
			public void handedOff(String key) {
				handoffs.increment();
			}

			@Override
			public void leaseStateChanged(String key, String path, LeaseState state) {
				if (state == LeaseState.LOST) {
					lost.increment();
				}
			}

			@Override
			public void connectionStateChanged(ConnectionState state) {
				Counter.builder("zklock.session.events")
					.description("ZooKeeper connection state changes")
					.tag("state", state.name())
					.register(meterRegistry)
					.increment();
			}

		});
	}

}
