package dev.zklock.embedded;

import java.nio.file.Path;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.metadata.UnknownZkLockPropertiesException;
import dev.zklock.autoconfigure.ZkLockConnectionDetails;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EmbeddedZooKeeperAutoConfiguration}, with the real server it starts.
 */
@Timeout(60)
class EmbeddedZooKeeperAutoConfigurationTests {

	@TempDir
	Path dir;

	// Listed after zk-lock's own on purpose: the ordering of the auto-configurations, not
	// of this list, must put the embedded server's connection details first
	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ZkLockAutoConfiguration.class, EmbeddedZooKeeperAutoConfiguration.class));

	@RegisterExtension
	final SystemPropertiesRestored systemProperties = new SystemPropertiesRestored();

	@Test
	void startsAServerAndPointsTheClientAtItWhateverTheConnectString() {
		// Nothing listens on port 1: the client connects only if the embedded server's
		// details win
		this.runner
			.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.port=0",
					"zklock.connect-string=127.0.0.1:1", "zklock.fail-fast=true")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(EmbeddedZooKeeper.class)
					.hasSingleBean(ZkLockConnectionDetails.class);
				String connectString = context.getBean(EmbeddedZooKeeper.class).getConnectString();
				assertThat(context.getBean(ZkLockConnectionDetails.class).getConnectString()).isEqualTo(connectString);
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().getCurrentConnectionString()).isEqualTo(connectString);
				assertThat(client.getZookeeperClient().isConnected()).isTrue();
				ZkLock lock = context.getBean(ZkLockRegistry.class).obtain("embedded");
				lock.lock();
				try {
					assertThat(client.getChildren().forPath("/locks/embedded")).hasSize(1);
				}
				finally {
					lock.unlock();
				}
			});
	}

	@Test
	void offUnlessEnabled() {
		this.runner.withPropertyValues("zklock.fail-fast=false", "zklock.initial-connect-wait=0s")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(EmbeddedZooKeeper.class));
		this.runner
			.withPropertyValues("zklock.embedded.enabled=false", "zklock.fail-fast=false",
					"zklock.initial-connect-wait=0s")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(EmbeddedZooKeeper.class));
	}

	@Test
	void offWhenZkLockIsOff() {
		this.runner.withPropertyValues("zklock.enabled=false", "zklock.embedded.enabled=true", "zklock.embedded.port=0")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(EmbeddedZooKeeper.class)
				.doesNotHaveBean(CuratorFramework.class));
	}

	@Test
	void backsOffFromTheApplicationsOwnServer() {
		this.runner.withPropertyValues("zklock.embedded.enabled=true")
			.withBean("myZooKeeper", EmbeddedZooKeeper.class, () -> start(this.dir.resolve("own")),
					(definition) -> definition.setDestroyMethodName("close"))
			.run((context) -> {
				assertThat(context).hasSingleBean(EmbeddedZooKeeper.class).hasBean("myZooKeeper");
				assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().getCurrentConnectionString())
					.isEqualTo(context.getBean(EmbeddedZooKeeper.class).getConnectString());
			});
	}

	@Test
	void portOutOfRangeNamesThePropertyBeforeAnythingStarts() throws Exception {
		List<Path> before = EmbeddedZooKeeperTempDirectoryTests.tempDataDirectories();
		this.runner.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.port=70000")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
						(ex) -> assertThat(ex.getName()).isEqualTo("zklock.embedded.port")));
		assertThat(EmbeddedZooKeeperTempDirectoryTests.tempDataDirectories()).isEqualTo(before);
	}

	@Test
	void aDataDirectoryOfTheApplicationIsKept() {
		Path dataDir = this.dir.resolve("zk");
		this.runner
			.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.port=0",
					"zklock.embedded.data-dir=" + dataDir)
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				client.create().forPath("/kept", "data".getBytes());
			});
		assertThat(dataDir.resolve("data")).isDirectory();
		// The node written above is in the transaction log, so the next start finds it
		this.runner
			.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.port=0",
					"zklock.embedded.data-dir=" + dataDir)
			.run((context) -> assertThat(context.getBean(CuratorFramework.class).getData().forPath("/kept"))
				.isEqualTo("data".getBytes()));
		assertThat(dataDir.resolve("data")).isDirectory();
	}

	@Test
	void relaxedFormsOfTheEmbeddedKeysAreKnownWhereTheModuleIs() {
		Path dataDir = this.dir.resolve("relaxed");
		this.runner
			.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.port=0",
					"zklock.embedded.dataDir=" + dataDir, "zklock.fail-fast=true")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(EmbeddedZooKeeper.class);
				assertThat(dataDir.resolve("data")).isDirectory();
			});
	}

	@Test
	void aMisspelledEmbeddedKeyFailsBeforeTheServerStarts() {
		// Were the typo ignored, the server would take the default port, 2181
		List<Path> before = EmbeddedZooKeeperTempDirectoryTests.tempDataDirectories();
		this.runner.withPropertyValues("zklock.embedded.enabled=true", "zklock.embedded.prot=0")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(UnknownZkLockPropertiesException.class)
				.hasMessageContaining(
						"zklock.embedded.prot (property source 'test'; did you mean zklock.embedded.port?)"));
		assertThat(EmbeddedZooKeeperTempDirectoryTests.tempDataDirectories()).isEqualTo(before);
	}

	private static EmbeddedZooKeeper start(Path dataDir) {
		try {
			return new EmbeddedZooKeeper(0, dataDir);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
