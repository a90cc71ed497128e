package dev.zklock.autoconfigure.metrics;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.zklock.leadership.LeaderGrantedEvent;
import dev.zklock.leadership.ZkLeadership;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Binds each leader group's statistics ({@link ZkLeadership#statistics(String)}) to
 * Micrometer, tagged {@code group}:
 * <ul>
 * <li>{@code zklock.leadership.terms}: terms this instance began (counter);</li>
 * <li>{@code zklock.leadership.leading}: 1 while it leads, else 0 (gauge);</li>
 * <li>{@code zklock.leadership.time.leading}: seconds it led, the current term included
 * (counter);</li>
 * <li>{@code zklock.leadership.handoffs}: terms it handed over (counter), named as the
 * lock's {@code zklock.handoffs};</li>
 * <li>{@code zklock.leadership.handoff.time}: seconds its hand-offs took (counter);</li>
 * <li>{@code zklock.leadership.interrupted.work}: calls of leader work interrupted
 * (counter).</li>
 * </ul>
 * Group names are few and the application's own, unlike lock keys: they can be tags. The
 * groups known when bound get their meters then, at zero; a group added later gets them
 * once the context is refreshed, or when this instance first leads it.
 *
 * @author zk-lock
 */
public class ZkLeadershipMeterBinder implements MeterBinder, ApplicationListener<ApplicationEvent> {

	private final ZkLeadership leadership;

	private final List<MeterRegistry> meterRegistries = new CopyOnWriteArrayList<>();

	private final Map<MeterRegistry, Set<String>> bound = new ConcurrentHashMap<>();

	/**
	 * Create a new instance.
	 * @param leadership the leadership whose groups are measured
	 */
	public ZkLeadershipMeterBinder(ZkLeadership leadership) {
		this.leadership = leadership;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		this.meterRegistries.add(meterRegistry);
		for (String group : this.leadership.getGroups()) {
			bind(meterRegistry, group);
		}
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ContextRefreshedEvent) {
			this.leadership.getGroups().forEach(this::bindToAll);
		}
		else if (event instanceof LeaderGrantedEvent granted) {
			bindToAll(granted.getGroup());
		}
	}

	private void bindToAll(String group) {
		for (MeterRegistry meterRegistry : this.meterRegistries) {
			bind(meterRegistry, group);
		}
	}

	private void bind(MeterRegistry meterRegistry, String group) {
		// Micrometer returns the meter already registered under the same id; the set
		// only saves the work
		if (!this.bound.computeIfAbsent(meterRegistry, (key) -> ConcurrentHashMap.newKeySet()).add(group)) {
			return;
		}
		ZkLeadership leadership = this.leadership;
		FunctionCounter.builder("zklock.leadership.terms", leadership, (l) -> l.statistics(group).terms())
			.description("Leadership terms this instance began, by group")
			.tag("group", group)
			.register(meterRegistry);
		Gauge.builder("zklock.leadership.leading", leadership, (l) -> l.isLeader(group) ? 1 : 0)
			.description("Whether this instance leads the group: 1 or 0")
			.tag("group", group)
			.register(meterRegistry);
		FunctionCounter
			.builder("zklock.leadership.time.leading", leadership,
					(l) -> seconds(l.statistics(group).timeLeading().toNanos()))
			.description("Time this instance led the group, the current term included")
			.baseUnit("seconds")
			.tag("group", group)
			.register(meterRegistry);
		FunctionCounter.builder("zklock.leadership.handoffs", leadership, (l) -> l.statistics(group).handOffs())
			.description("Leadership terms this instance handed over (closed, yielded or revoked), by group")
			.tag("group", group)
			.register(meterRegistry);
		FunctionCounter
			.builder("zklock.leadership.handoff.time", leadership,
					(l) -> seconds(l.statistics(group).timeHandingOff().toNanos()))
			.description("Time this instance's hand-offs took, from the end of each term until its leader work "
					+ "drained, by group")
			.baseUnit("seconds")
			.tag("group", group)
			.register(meterRegistry);
		FunctionCounter
			.builder("zklock.leadership.interrupted.work", leadership, (l) -> l.statistics(group).interruptedWork())
			.description("Calls of leader work interrupted at a lost term or a hand-off's timeout, by group")
			.tag("group", group)
			.register(meterRegistry);
	}

	private static double seconds(long nanos) {
		return (double) nanos / TimeUnit.SECONDS.toNanos(1);
	}

}
