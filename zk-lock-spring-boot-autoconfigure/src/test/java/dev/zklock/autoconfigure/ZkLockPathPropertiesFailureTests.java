package dev.zklock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code zklock.lock.root-path}, {@code zklock.namespace}, the connect string's chroot
 * and {@code zklock.lock.max-keys-per-call} that would write into ZooKeeper's reserved
 * tree, or that ZooKeeper would refuse, fail startup with Spring Boot's failure report
 * naming the property and its value, and write nothing into ZooKeeper.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class ZkLockPathPropertiesFailureTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues("zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s");
	}

	@Test
	void rootPathsInTheReservedTreeOrMalformedFailStartup() throws Exception {
		List<String> before = tree();
		assertReported("zklock.lock.root-path", "/zookeeper",
				"Lock root path must not be ZooKeeper's reserved tree /zookeeper or inside it, but was '/zookeeper'");
		assertReported("zklock.lock.root-path", "/zookeeper/quota", "inside it, but was '/zookeeper/quota'");
		assertReported("zklock.lock.root-path", "/", "Lock root path must not be '/'");
		assertReported("zklock.lock.root-path", "zookeeper", "must be absolute (start with '/'), but was 'zookeeper'");
		assertReported("zklock.lock.root-path", "/a/../b", "must not contain empty, '.' or '..' segments");
		assertReported("zklock.lock.root-path", "/a/./b", "must not contain empty, '.' or '..' segments");
		assertReported("zklock.lock.root-path", "/a//b", "must not contain empty, '.' or '..' segments");
		assertReported("zklock.lock.root-path", "/locks/", "must not end with '/', but was '/locks/'");
		assertReported("zklock.lock.root-path", "/lo\u0001cks", "/lo\\u0001cks",
				"contains control character U+0001 at index 2");
		assertThat(tree()).isEqualTo(before);
	}

	@Test
	void namespacesInTheReservedTreeOrMalformedFailStartup() throws Exception {
		List<String> before = tree();
		assertReported("zklock.namespace", "zookeeper", "with zklock.lock.root-path '/locks' it would put the locks "
				+ "at /zookeeper/locks, inside ZooKeeper's reserved tree /zookeeper");
		assertReported("zklock.namespace", "zookeeper/quota", "at /zookeeper/quota/locks, inside");
		assertReported("zklock.namespace", "..", "is not one or more ZooKeeper path segments: Namespace must not "
				+ "contain empty, '.' or '..' segments, but was '/..'");
		assertReported("zklock.namespace", "a/./b", "must not contain empty, '.' or '..' segments");
		assertReported("zklock.namespace", "a//b", "must not contain empty, '.' or '..' segments, but was '/a//b'");
		assertReported("zklock.namespace", "/shop", "must not start or end with '/'");
		assertReported("zklock.namespace", "shop/", "must not start or end with '/'");
		assertReported("zklock.namespace", "sh\top", "sh\\u0009op", "contains control character U+0009 at index 2");
		assertThat(tree()).isEqualTo(before);
	}

	@Test
	void aChrootInTheReservedTreeFailsStartup() throws Exception {
		List<String> before = tree();
		String connectString = this.zk.connectString() + "/zookeeper/quota";
		assertReported("zklock.connect-string", connectString,
				"its chroot '/zookeeper/quota' would put every lock inside ZooKeeper's reserved tree /zookeeper");
		assertReported("zklock.connect-string", this.zk.connectString() + "/a/../b",
				"its chroot is not a valid ZooKeeper path: Its chroot must not contain empty, '.' or '..' segments");
		assertThat(tree()).isEqualTo(before);
	}

	@Test
	void aBadBoundOnTheKeysOfACallFailsStartupAndAGoodOneIsApplied() {
		assertReported("zklock.lock.max-keys-per-call", "0", "must be at least 1");
		runner().withPropertyValues("zklock.lock.max-keys-per-call=2").run((context) -> {
			ZkLockRegistry registry = context.getBean(ZkLockRegistry.class);
			assertThat(registry.getOptions().maxKeysPerCall()).isEqualTo(2);
			assertThat(catchIllegalArgument(() -> registry.obtainAll(List.of("a", "b", "c"))))
				.hasMessageContaining("at most 2 distinct keys (maxKeysPerCall), but 3 were given");
		});
	}

	@Test
	void pathsBesideTheReservedTreeStart() {
		runner().withPropertyValues("zklock.namespace=zookeepers").run((context) -> assertThat(context).hasNotFailed());
		runner().withPropertyValues("zklock.namespace=app", "zklock.lock.root-path=/locks/zookeeper").run((context) -> {
			ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("k");
			lock.lock();
			try {
				assertThat(this.zk.children("/app/locks/zookeeper/k")).hasSize(1);
			}
			finally {
				lock.unlock();
			}
		});
	}

	/**
	 * Spring Boot prints the report, not a stack trace, with the value's control
	 * characters escaped (an escape sequence would otherwise reach the console).
	 */
	@Test
	void theReportPrintedAtStartupEscapesTheValue(CapturedOutput output) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.registerShutdownHook(false);
		Throwable failure = catchThrowable(() -> application.run("--zklock.connect-string=" + this.zk.connectString(),
				"--zklock.namespace=sh\u001b[31mop"));
		assertThat(failure).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value 'sh\\u001B[31mop' for configuration property 'zklock.namespace' (originating "
					+ "from '")
			.contains("contains control character U+001B at index 2")
			.doesNotContain("sh\u001b")
			.doesNotContain("\tat dev.zklock.autoconfigure");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class App {

	}

	private static Throwable catchIllegalArgument(Runnable action) {
		try {
			action.run();
		}
		catch (IllegalArgumentException ex) {
			return ex;
		}
		throw new AssertionError("Expected an IllegalArgumentException");
	}

	private void assertReported(String property, String value, String reason) {
		assertReported(property, value, value, reason);
	}

	/**
	 * Start with the property set, and check the report Spring Boot's analyzers make of
	 * the failure: it names the property, its value (control characters escaped) and the
	 * reason.
	 */
	private void assertReported(String property, String value, String shown, String reason) {
		runner().withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class);
			StandardEnvironment environment = new StandardEnvironment();
			environment.getPropertySources().addFirst(new MapPropertySource("test", Map.of(property, value)));
			FailureAnalysis analysis = analyze(failure, environment);
			assertThat(analysis).as("analysis of %s", failure).isNotNull();
			assertThat(analysis.getDescription()).as(property + "=" + value)
				.startsWith("Invalid value '" + shown + "' for configuration property '" + property + "'")
				.contains(reason);
		});
	}

	/**
	 * The first analysis of the analyzers registered in {@code spring.factories}, as
	 * Spring Boot makes its failure report.
	 */
	private static FailureAnalysis analyze(Throwable failure, Environment environment) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader
			.forDefaultResourceLocation(ZkLockPathPropertiesFailureTests.class.getClassLoader())
			.load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, environment),
					SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
					}));
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No analyzer reported " + failure);
	}

	/**
	 * Every path of the tree, read by a plain Curator client of the test.
	 */
	private List<String> tree() throws Exception {
		CuratorFramework client = this.zk.newClient();
		List<String> paths = new ArrayList<>();
		walk(client, "/", paths);
		return paths;
	}

	private static void walk(CuratorFramework client, String path, List<String> paths) throws Exception {
		paths.add(path);
		for (String child : client.getChildren().forPath(path).stream().sorted().toList()) {
			walk(client, path.equals("/") ? "/" + child : path + "/" + child, paths);
		}
	}

}
