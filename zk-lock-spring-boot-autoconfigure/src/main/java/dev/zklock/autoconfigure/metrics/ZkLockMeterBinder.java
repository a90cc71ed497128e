package dev.zklock.autoconfigure.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.curator.framework.state.ConnectionState;

import dev.zklock.core.LeaseState;
import dev.zklock.core.ZkLockListener;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Binds the lock registry's state to Micrometer: {@code zklock.active} (locks held in
 * this JVM), {@code zklock.waiting} (threads waiting), {@code zklock.handoffs} (local
 * hand-offs), {@code zklock.lost} (locks lost while held) and
 * {@code zklock.session.events} (connection state changes, tagged {@code state}). Lock
 * keys are never tags: they are unbounded.
 * <p>
 * Every meter is registered when bound, at zero, including one
 * {@code zklock.session.events} counter per connection state: an alert on
 * {@code zklock.lost} or on {@code zklock.session.events{state="LOST"}} must see a series
 * before the first loss, not only after it.
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
		Gauge.builder("zklock.session.connected", this.registry, ZkLockMeterBinder::connected)
			.description("1 while the ZooKeeper client is connected (CONNECTED or RECONNECTED), 0 otherwise")
			.register(meterRegistry);
		Counter handoffs = Counter.builder("zklock.handoffs")
			.description("Locks passed to another thread of this JVM without a ZooKeeper round trip")
			.register(meterRegistry);
		Counter lost = Counter.builder("zklock.lost")
			.description("Locks whose ZooKeeper session expired while held")
			.register(meterRegistry);
		// Registered up front, not on the first event, so that the series exist at
		// startup
		Map<ConnectionState, Counter> sessionEvents = new EnumMap<>(ConnectionState.class);
		for (ConnectionState state : ConnectionState.values()) {
			sessionEvents.put(state,
					Counter.builder("zklock.session.events")
						.description("ZooKeeper connection state changes, by new state")
						.tag("state", state.name())
						.register(meterRegistry));
		}
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
				Objects.requireNonNull(sessionEvents.get(state), "a counter is registered above for every state")
					.increment();
			}

		});
	}

	private static double connected(ZkLockRegistry registry) {
		ConnectionState state = registry.connectionStatus().state();
		return (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) ? 1 : 0;
	}

}
