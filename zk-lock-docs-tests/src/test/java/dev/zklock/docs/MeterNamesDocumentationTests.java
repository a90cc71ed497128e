package dev.zklock.docs;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.zklock.template.LockDefinition;
import dev.zklock.template.ZkLockTemplate;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The meters of the monitoring page's table are the ones a running application registers:
 * an application with Actuator and the embedded ZooKeeper, in a leader group, takes a
 * lock, and its {@code zklock.*} meters are compared with the table, both ways.
 */
class MeterNamesDocumentationTests {

	static final String PAGE = "docs/monitoring.md";

	/** A row of the metrics table: its first cell, a meter name in a code span. */
	private static final Pattern ROW = Pattern.compile("^\\|\\s*`(zklock\\.[a-z.]+)`\\s*\\|");

	/**
	 * The meter names the monitoring page's metrics table lists.
	 * @return the names
	 */
	static Set<String> documentedMeters() {
		Set<String> meters = new TreeSet<>();
		for (String line : Markdown.of(PAGE).prose().values()) {
			Matcher matcher = ROW.matcher(line);
			if (matcher.find()) {
				meters.add(matcher.group(1));
			}
		}
		return meters;
	}

	@Test
	@Timeout(120)
	void theMetricsTableListsExactlyTheMetersARunningApplicationRegisters() {
		Set<String> documented = documentedMeters();
		assertThat(documented).contains("zklock.acquire", "zklock.held");
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(MeteredApplication.class)
			.web(WebApplicationType.NONE)
			.run("--zklock.embedded.enabled=true", "--zklock.embedded.port=0", "--spring.main.banner-mode=off",
					"--zklock.leadership.groups=docs")) {
			ZkLockTemplate template = context.getBean(ZkLockTemplate.class);
			String result = template.execute(LockDefinition.named("docs").withWaitAtMost(Duration.ofSeconds(10)),
					List.of("docs-meters"), () -> "held");
			assertThat(result).isEqualTo("held");
			Set<String> registered = new TreeSet<>();
			for (Meter meter : context.getBean(MeterRegistry.class).getMeters()) {
				if (meter.getId().getName().startsWith("zklock.")) {
					registered.add(meter.getId().getName());
				}
			}
			assertThat(registered).as("the zklock.* meters of a running application, against the table of %s", PAGE)
				.isEqualTo(documented);
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class MeteredApplication {

	}

}
