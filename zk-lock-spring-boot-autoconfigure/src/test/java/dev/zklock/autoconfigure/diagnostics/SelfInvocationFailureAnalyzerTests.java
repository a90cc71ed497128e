package dev.zklock.autoconfigure.diagnostics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.JdkSensitive;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests for {@link SelfInvocationFailureAnalyzer}: a Boot application whose bean calls
 * its own locked method through {@code this} fails to start with a report that lists
 * every call with its line, and says what to do.
 */
@JdkSensitive
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationFailureAnalyzerTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void bootReportsEveryCallWithItsLineAndTheRemedies(CapturedOutput output) throws IOException {
		Throwable failure = catchThrowable(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.registerShutdownHook(false)
			.properties("zklock.connect-string=" + this.zk.connectString())
			.run()
			.close());
		assertThat(failure).isNotNull();
		FailureAnalysis analysis = new SelfInvocationFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of %s", failure).isNotNull();
		String inventory = Inventory.class.getName();
		String newLine = System.lineSeparator();
		assertThat(analysis.getDescription()).isEqualTo("The bean '" + inventory + "' (" + inventory + ") calls its "
				+ "own locked methods through 'this', which does not go through the proxy that takes their locks, so "
				+ "they would run without them:" + newLine + newLine + "\t- the method reference this::restock in "
				+ inventory + ".restockAll(List) (" + at("reference") + ") calls @DistributedLock " + inventory
				+ ".restock(String)" + newLine + "\t- " + inventory + ".restockAll(List) (" + at("direct")
				+ ") calls @DistributedLock " + inventory + ".restock(String)");
		assertThat(analysis.getAction()).isEqualTo("Lock the caller instead, or call through the proxy: inject the "
				+ "bean into itself (@Lazy, or ObjectProvider) and call the method on that reference, e.g. "
				+ "self.restock(...). If a call is meant to run without its lock, say so at the caller with "
				+ "@UnlockedSelfCall(\"restock\").");
		// Boot found the analyzer in spring.factories
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains(analysis.getDescription())
			.contains(analysis.getAction());
	}

	/**
	 * Where the call whose line ends with {@code // call:<marker>} is.
	 */
	private static String at(String marker) throws IOException {
		String file = SelfInvocationFailureAnalyzerTests.class.getSimpleName() + ".java";
		List<String> lines = Files.readAllLines(Path.of("src/test/java",
				SelfInvocationFailureAnalyzerTests.class.getPackageName().replace('.', '/'), file));
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).endsWith("// call:" + marker)) {
				return file + ":" + (i + 1);
			}
		}
		throw new AssertionError("No line marked " + marker);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, AopAutoConfiguration.class })
	@Import(Inventory.class)
	static class App {

	}

	static class Inventory {

		@DistributedLock(key = "'stock:' + #sku")
		public void restock(String sku) {
		}

		public void restockAll(List<String> skus) {
			skus.forEach(this::restock); // call:reference
			for (String sku : skus) {
				restock(sku); // call:direct
			}
		}

	}

}
