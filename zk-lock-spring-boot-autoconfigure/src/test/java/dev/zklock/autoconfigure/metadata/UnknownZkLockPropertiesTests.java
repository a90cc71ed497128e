package dev.zklock.autoconfigure.metadata;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.autoconfigure.diagnostics.EmbeddedZooKeeperModuleMissingException;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link UnknownZkLockPropertiesCheck}: {@code zklock.*} keys that no module
 * declares fail startup, from every kind of property source, while every form Spring Boot
 * binds of a declared property passes. Against a real in-process ZooKeeper, for the
 * contexts that start.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class UnknownZkLockPropertiesTests {

	private static final String PROPERTIES_FILE = "class path resource [unknownkeys/typos.properties]";

	private static final String YAML_FILE = "class path resource [unknownkeys/typos.yml]";

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues("zklock.session-timeout=4s");
	}

	private ApplicationContextRunner connectedRunner() {
		return runner().withPropertyValues("zklock.connect-string=" + this.zk.connectString());
	}

	@Test
	void misspelledKeysOfAPropertiesFileFailWithFileLineAndTheNearestProperty() {
		runner().withInitializer(file(new PropertiesPropertySourceLoader(), "unknownkeys/typos.properties"))
			.run(failsWith(
					new UnknownZkLockProperty("zklock.conect-string", PROPERTIES_FILE + ", line 2",
							"zklock.connect-string"),
					new UnknownZkLockProperty("zklock.lock.default-wiat", PROPERTIES_FILE + ", line 4",
							"zklock.lock.default-wait")));
	}

	@Test
	void misspelledKeysOfAYamlFileFailWithFileAndLine() {
		runner().withInitializer(file(new YamlPropertySourceLoader(), "unknownkeys/typos.yml"))
			.run(failsWith(
					new UnknownZkLockProperty("zklock.conect-string", YAML_FILE + ", line 2", "zklock.connect-string"),
					new UnknownZkLockProperty("zklock.lock.default-wiat", YAML_FILE + ", line 4",
							"zklock.lock.default-wait")));
	}

	@Test
	void misspelledEnvironmentVariablesFailWithTheVariableFormOfTheNearestProperty() {
		runner()
			.withInitializer(environmentVariables(Map.of("ZKLOCK_CONECT_STRING", "zk-prod.example:2999",
					"ZKLOCK_LOCK_DEFAULTWIAT", "5s", "ZKLOCK_SESSIONTIMEOUT", "4s", "PATH", "/usr/bin")))
			.run(failsWith(
					new UnknownZkLockProperty("ZKLOCK_CONECT_STRING", "environment variable",
							"zklock.connect-string (ZKLOCK_CONNECTSTRING)"),
					new UnknownZkLockProperty("ZKLOCK_LOCK_DEFAULTWIAT", "environment variable",
							"zklock.lock.default-wait (ZKLOCK_LOCK_DEFAULTWAIT)")));
	}

	@Test
	void misspelledSystemPropertiesFail() {
		runner().withSystemProperties("zklock.conect-string=zk-prod.example:2999")
			.run(failsWith(
					new UnknownZkLockProperty("zklock.conect-string", "system property", "zklock.connect-string")));
	}

	@Test
	void everyUnknownKeyIsReportedAtOnceInOrderOfPrecedence() {
		runner().withPropertyValues("zklock.namespce=shop", "zklock.fail-fst=true")
			.withSystemProperties("zklock.lock.root-paht=/x")
			.withInitializer(environmentVariables(Map.of("ZKLOCK_TLS_ENABLD", "true")))
			.withInitializer(file(new PropertiesPropertySourceLoader(), "unknownkeys/typos.properties"))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(((UnknownZkLockPropertiesException) context.getStartupFailure()).getPropertyNames())
					.containsExactly("zklock.conect-string", "zklock.lock.default-wiat", "zklock.fail-fst",
							"zklock.namespce", "zklock.lock.root-paht", "ZKLOCK_TLS_ENABLD");
			});
	}

	@Test
	void failsBeforeAnyBeanIsCreated() {
		AtomicBoolean created = new AtomicBoolean();
		runner().withPropertyValues("zklock.conect-string=zk-prod.example:2999")
			.withBean(CuratorFramework.class, () -> {
				created.set(true);
				return CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(100));
			})
			.run((context) -> assertThat(context).getFailure().isInstanceOf(UnknownZkLockPropertiesException.class));
		assertThat(created).isFalse();
	}

	@Test
	void theMessageNamesEveryKeyWhereNoFailureAnalyzerRuns() {
		runner().withPropertyValues("zklock.conect-string=zk-prod.example:2999", "zklock.frobnicate=yes")
			.run((context) -> assertThat(context).getFailure()
				.hasMessage("zk-lock does not know 2 properties under zklock: zklock.conect-string (property source "
						+ "'test'; did you mean zklock.connect-string?), zklock.frobnicate (property source 'test'). "
						+ "Correct the names, or set zklock.fail-on-unknown-properties=false to start with unknown keys ignored"));
	}

	@Test
	void relaxedFormsOfDeclaredPropertiesPassAndBind() {
		runner()
			.withPropertyValues("zklock.connectString=" + this.zk.connectString(), "zklock.lock.default_wait=3s",
					"zklock.web.problemDetails.retryAfter=2s", "zklock.lock.Linger=1s")
			.withSystemProperties("zklock.lock.releaseTimeout=150ms")
			.withInitializer(environmentVariables(
					Map.of("ZKLOCK_LOCK_MAXLOCALHANDOFFS", "3", "ZKLOCK_LOCK_ROOT_PATH", "/relaxed")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ZkLockProperties properties = context.getBean(ZkLockProperties.class);
				assertThat(properties.getConnectString()).isEqualTo(this.zk.connectString());
				assertThat(properties.getLock().getDefaultWait()).isEqualTo(Duration.ofSeconds(3));
				assertThat(properties.getWeb().getProblemDetails().getRetryAfter()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getLock().getLinger()).isEqualTo(Duration.ofSeconds(1));
				assertThat(properties.getLock().getReleaseTimeout()).isEqualTo(Duration.ofMillis(150));
				assertThat(properties.getLock().getMaxLocalHandoffs()).isEqualTo(3);
				assertThat(properties.getLock().getRootPath()).isEqualTo("/relaxed");
				assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().isConnected()).isTrue();
			});
	}

	@Test
	void bothEnvironmentVariableFormsOfTheConnectStringPassAndConnect() {
		for (String variable : List.of("ZKLOCK_CONNECTSTRING", "ZKLOCK_CONNECT_STRING")) {
			runner().withPropertyValues("zklock.fail-fast=true")
				.withInitializer(environmentVariables(Map.of(variable, this.zk.connectString())))
				.run((context) -> {
					assertThat(context).as(variable).hasNotFailed();
					assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().isConnected()).isTrue();
				});
		}
	}

	@Test
	void everyDeclaredPropertyPasses() {
		connectedRunner()
			.withPropertyValues("zklock.enabled=true", "zklock.namespace=app", "zklock.connection-timeout=5s",
					"zklock.initial-connect-wait=5s", "zklock.fail-fast=true", "zklock.fail-on-unknown-properties=true",
					"zklock.retry.base-sleep=100ms", "zklock.retry.max-retries=3", "zklock.retry.max-sleep=1s",
					"zklock.lock.root-path=/locks", "zklock.lock.default-wait=1s", "zklock.lock.max-local-handoffs=8",
					"zklock.lock.lost-lock-policy=throw", "zklock.lock.release-timeout=0s", "zklock.lock.linger=0s",
					"zklock.annotation.order=5", "zklock.embedded.enabled=false", "zklock.embedded.port=2182",
					"zklock.embedded.data-dir=/tmp/zk", "zklock.tls.enabled=false",
					"zklock.tls.hostname-verification=true", "zklock.web.problem-details.enabled=true",
					"zklock.web.problem-details.expose-lock-details=false", "zklock.integration.enabled=true",
					"zklock.shedlock.enabled=true", "zklock.endpoint.revocation-enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(ZkLockRegistry.class));
	}

	@Test
	void embeddedKeysAreKnownWithoutTheEmbeddedModule() {
		connectedRunner()
			.withPropertyValues("zklock.embedded.enabled=false", "zklock.embedded.port=0",
					"zklock.embedded.dataDir=/tmp/zk")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theEmbeddedModuleMissingReportStaysTheOneForEmbeddedEnabledWithoutTheModule() {
		runner().withPropertyValues("zklock.embedded.enabled=true", "zklock.conect-string=zk-prod.example:2999")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(EmbeddedZooKeeperModuleMissingException.class));
	}

	@Test
	void optOutStartsAndListsTheKeysInOneWarning(CapturedOutput output) {
		connectedRunner()
			.withPropertyValues("zklock.fail-on-unknown-properties=false", "zklock.conect-string=zk-prod.example:2999")
			.withInitializer(environmentVariables(Map.of("ZKLOCK_MY_APP_OWN_KEY", "kept")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// The application's own keys are ignored, as before: the client goes
				// where
				// the declared property says
				assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().getCurrentConnectionString())
					.isEqualTo(this.zk.connectString());
			});
		assertThat(output.getOut().lines().filter((line) -> line.contains("zk-lock ignores")))
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("WARN")
			.endsWith("zk-lock ignores 2 properties under zklock that it does not know "
					+ "(zklock.fail-on-unknown-properties=false): zklock.conect-string (property source 'test'; did "
					+ "you mean zklock.connect-string?), ZKLOCK_MY_APP_OWN_KEY (environment variable)");
	}

	@Test
	void optOutAsAnEnvironmentVariable() {
		connectedRunner().withPropertyValues("zklock.conect-string=zk-prod.example:2999")
			.withInitializer(environmentVariables(Map.of("ZKLOCK_FAILONUNKNOWNPROPERTIES", "false")))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void notCheckedWhenZkLockIsOff() {
		runner().withPropertyValues("zklock.enabled=false", "zklock.conect-string=zk-prod.example:2999")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(CuratorFramework.class));
	}

	@Test
	void aLaterModulesMapListArrayAndDeprecatedPropertiesAreKnown() {
		connectedRunner().withClassLoader(withLaterModule())
			.withPropertyValues("zklock.later.labels.team=payments", "zklock.later.labels[region.name]=eu",
					"zklock.later.hosts=a,b", "zklock.later.hosts[0]=a", "zklock.later.servers[0].port=1",
					"zklock.later.ports[1]=2", "zklock.later.timeout=5s", "zklock.later.old-timeout=5s",
					// A group, as an empty YAML section "later:" binds it
					"zklock.later=")
			.withInitializer(environmentVariables(Map.of("ZKLOCK_LATER_HOSTS_0", "c", "ZKLOCK_LATER_LABELS_TEAM", "x",
					"ZKLOCK_LATER_OLD_TIMEOUT", "1s")))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void belowAScalarPropertyOrAMisspelledMapIsUnknown() {
		runner().withClassLoader(withLaterModule())
			.withPropertyValues("zklock.later.timeout.value=5s", "zklock.later.labls.team=payments")
			.run(failsWith(
					new UnknownZkLockProperty("zklock.later.labls.team", "property source 'test'",
							"zklock.later.labels"),
					new UnknownZkLockProperty("zklock.later.timeout.value", "property source 'test'",
							"zklock.later.timeout")));
	}

	@Test
	void withoutItsModuleALaterModulesKeyIsUnknown() {
		runner().withPropertyValues("zklock.later.timeout=5s")
			.run(failsWith(new UnknownZkLockProperty("zklock.later.timeout", "property source 'test'", null)));
	}

	@Test
	void withoutAnyMetadataNothingIsCheckedAndAWarningSaysSo(CapturedOutput output) {
		connectedRunner()
			.withClassLoader(
					new FilteredClassLoader(new ClassPathResource("META-INF/spring-configuration-metadata.json"),
							new ClassPathResource("META-INF/additional-spring-configuration-metadata.json")))
			.withPropertyValues("zklock.conect-string=zk-prod.example:2999")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("No zklock.* property is declared in the configuration metadata on the classpath");
	}

	private static ContextConsumer<AssertableApplicationContext> failsWith(UnknownZkLockProperty... expected) {
		return (context) -> {
			assertThat(context).getFailure().isInstanceOf(UnknownZkLockPropertiesException.class);
			assertThat(((UnknownZkLockPropertiesException) context.getStartupFailure()).getProperties())
				.containsExactly(expected);
		};
	}

	static ApplicationContextInitializer<ConfigurableApplicationContext> file(PropertySourceLoader loader,
			String location) {
		return (context) -> {
			try {
				for (PropertySource<?> source : loader.load(location, new ClassPathResource(location))) {
					context.getEnvironment().getPropertySources().addFirst(source);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		};
	}

	/**
	 * The given variables in place of the process's environment, in the source that
	 * Spring Boot maps as environment variables.
	 */
	static ApplicationContextInitializer<ConfigurableApplicationContext> environmentVariables(
			Map<String, Object> variables) {
		return (context) -> context.getEnvironment()
			.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
	}

	/**
	 * This classpath, plus the configuration metadata of a module that is not zk-lock's
	 * yet, with the kinds of properties zk-lock's own do not have.
	 */
	static ClassLoader withLaterModule() {
		URL metadata = UnknownZkLockPropertiesTests.class.getClassLoader()
			.getResource("unknownkeys/later-module-metadata.json");
		assertThat(metadata).isNotNull();
		return new ClassLoader(UnknownZkLockPropertiesTests.class.getClassLoader()) {

			@Override
			public Enumeration<URL> getResources(String name) throws IOException {
				List<URL> resources = Collections.list(super.getResources(name));
				if (name.equals("META-INF/spring-configuration-metadata.json")) {
					resources.add(metadata);
				}
				return Collections.enumeration(resources);
			}

		};
	}

}
