package dev.zklock.embedded;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What ZooKeeper writes to the log of an application that runs the embedded server:
 * everything when the application asks for it, and errors always;
 * {@link EmbeddedZooKeeperQuietLogTests} checks the default. Real applications, with
 * Spring Boot's logging system and the captured console.
 */
// The first start of Spring Boot and ZooKeeper in a JVM takes 20 s and more on a loaded
// machine
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedZooKeeperLoggingTests {

	/**
	 * Full logger names, so that lines can be told apart by logger; levels are
	 * unaffected.
	 */
	static final String CONSOLE_PATTERN = "%level [%logger] %msg%n";

	private static final Pattern LIBRARY_LINE = Pattern
		.compile("^(INFO|WARN) +\\[org\\.apache\\.(zookeeper|curator)[.\\]]");

	@RegisterExtension
	final SystemPropertiesRestored systemProperties = new SystemPropertiesRestored();

	@Test
	void theApplicationsOwnLevelsWin(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = application("logging.level.org.apache.zookeeper=info",
				// zk-lock's client default for this logger is the more specific one: set
				// it too
				"logging.level.org.apache.zookeeper.ClientCnxn=info")
			.run()) {
			lockOnce(context);
		}
		// Lines of every start and connection (the banner and the environment come once a
		// JVM)
		assertThat(output).contains("INFO [org.apache.zookeeper.server.ZooKeeperServer] Created server with tickTime")
			.contains("INFO [org.apache.zookeeper.ClientCnxn] Session establishment complete");
		assertThat(libraryLines(output)).hasSizeGreaterThan(30);
	}

	@Test
	void errorsStillReachTheLog(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = application().run(); ServerSocket busy = new ServerSocket(0)) {
			// A second, real server whose port is taken after the check for it: ZooKeeper
			// logs its bind failure at ERROR from its own thread, well within the start
			// timeout
			Properties configuration = new Properties();
			configuration.setProperty("clientPort", Integer.toString(busy.getLocalPort()));
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> new EmbeddedZooKeeper(0, null, configuration, Duration.ofSeconds(5)));
		}
		assertThat(output.getOut())
			.contains("ERROR [org.apache.zookeeper.server.embedded.ZooKeeperServerEmbeddedImpl] error during server "
					+ "lifecycle")
			.contains("java.net.BindException");
	}

	@Test
	void defaultLevelsOnlyWhileTheEmbeddedServerIsOn() {
		assertThat(defaultLevels()).isNull();
		assertThat(defaultLevels("zklock.embedded.enabled=false")).isNull();
		assertThat(defaultLevels("zklock.embedded.enabled=true", "zklock.enabled=false")).isNull();
		assertThat(defaultLevels("zklock.embedded.enabled=true")).containsOnly(
				Map.entry("logging.level.org.apache.zookeeper", "warn"),
				Map.entry("logging.level.org.apache.zookeeper.server.ServerCnxnFactory", "error"),
				Map.entry("logging.level.org.apache.curator.framework.imps", "warn"));
	}

	@Test
	void defaultLevelsComeLast() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addLast(new MapPropertySource("application",
					Map.of("zklock.embedded.enabled", "true", "logging.level.org.apache.zookeeper", "debug")));
		new EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor().postProcessEnvironment(environment,
				new SpringApplication());
		assertThat(environment.getPropertySources().stream().map(PropertySource::getName)).last()
			.isEqualTo(EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor.PROPERTY_SOURCE_NAME);
		assertThat(environment.getProperty("logging.level.org.apache.zookeeper")).isEqualTo("debug");
		assertThat(environment.getProperty("logging.level.org.apache.zookeeper.server.ServerCnxnFactory"))
			.isEqualTo("error");
	}

	static SpringApplicationBuilder application(String... properties) {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.registerShutdownHook(false)
			.properties("zklock.embedded.enabled=true", "zklock.embedded.port=0",
					"logging.pattern.console=" + CONSOLE_PATTERN)
			.properties(properties);
	}

	static void lockOnce(ConfigurableApplicationContext context) throws InterruptedException {
		ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("logging");
		assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
	}

	static List<String> libraryLines(CapturedOutput output) {
		return output.getOut().lines().filter((line) -> LIBRARY_LINE.matcher(line).find()).toList();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> defaultLevels(String... properties) {
		StandardEnvironment environment = new StandardEnvironment();
		TestPropertyValues.of(properties).applyTo(environment);
		new EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor().postProcessEnvironment(environment,
				new SpringApplication());
		PropertySource<?> source = environment.getPropertySources()
			.get(EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor.PROPERTY_SOURCE_NAME);
		return (source != null) ? (Map<String, Object>) source.getSource() : null;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ EmbeddedZooKeeperAutoConfiguration.class, ZkLockAutoConfiguration.class })
	static class App {

	}

}
