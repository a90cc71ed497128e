package dev.zklock.autoconfigure.metrics;

import java.util.Map;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;

import dev.zklock.template.ZkLockTemplate;

import org.springframework.util.StringUtils;

/**
 * {@link MeterFilter} that gives the meters made from zk-lock's observations a
 * description. {@link DefaultMeterObservationHandler} builds them from the observation's
 * name and tags only, which would leave Prometheus an empty {@code # HELP} line. A
 * description already set (by another filter or handler) is kept. The names are the
 * default conventions' ones: an observation a custom convention renames is the
 * application's to describe.
 *
 * @author zk-lock
 */
final class ZkLockObservationMeterDescriptions implements MeterFilter {

	static final Map<String, String> DESCRIPTIONS = Map.of(ZkLockTemplate.ACQUIRE_OBSERVATION,
			"Time spent waiting for a lock or permit, by lock name, kind and outcome",
			ZkLockTemplate.ACQUIRE_OBSERVATION + ".active",
			"Waits for a lock or permit in progress, by lock name and kind", ZkLockTemplate.HELD_OBSERVATION,
			"Time locks and permits were held, by lock name and kind", ZkLockTemplate.HELD_OBSERVATION + ".active",
			"Locks and permits held right now, by lock name and kind");

	@Override
	public Meter.Id map(Meter.Id id) {
		String description = DESCRIPTIONS.get(id.getName());
		if (description == null || StringUtils.hasText(id.getDescription())) {
			return id;
		}
		// Meter.Id has no withDescription(): rebuild it with everything else unchanged
		return new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
	}

}
