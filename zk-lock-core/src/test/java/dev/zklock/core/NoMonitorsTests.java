package dev.zklock.core;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.zklock.core.registry.ZkLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine waits with {@code java.util.concurrent} locks and parking, never on a
 * monitor: a virtual thread blocked in {@code synchronized} or {@code Object.wait} pins
 * its carrier thread before JDK 24, and a thousand threads queued for a hot key would
 * starve the carrier pool. Checked on the compiled classes with {@code javap}, so that no
 * {@code synchronized} block or method comes back unnoticed.
 */
@Timeout(120)
class NoMonitorsTests {

	@Test
	void engineClassesUseNoMonitor() throws Exception {
		ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
		List<String> offenders = new ArrayList<>();
		List<Path> classes = engineClasses();
		assertThat(classes).hasSizeGreaterThan(20);
		for (Path type : classes) {
			StringWriter out = new StringWriter();
			int exit = javap.run(new PrintWriter(out), new PrintWriter(out), "-c", "-p", type.toString());
			assertThat(exit).as(out.toString()).isZero();
			for (String line : out.toString().split("\n")) {
				if (line.contains("monitorenter") || line.contains(".wait(")
						|| line.matches("^\\s*(public |protected |private |static |final )*synchronized .*")) {
					offenders.add(type.getFileName() + ": " + line.trim());
				}
			}
		}
		assertThat(offenders).isEmpty();
	}

	private static List<Path> engineClasses() throws URISyntaxException, java.io.IOException {
		Path registry = Path.of(ZkLockRegistry.class.getProtectionDomain().getCodeSource().getLocation().toURI())
			.resolve("dev/zklock/core");
		try (Stream<Path> files = Files.list(registry)) {
			return files.filter((file) -> file.toString().endsWith(".class")).sorted().toList();
		}
	}

}
