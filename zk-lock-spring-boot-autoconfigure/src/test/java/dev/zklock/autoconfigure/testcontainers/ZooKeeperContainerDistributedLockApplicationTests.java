package dev.zklock.autoconfigure.testcontainers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import dev.zklock.annotation.DistributedLock;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Testcontainers support is for: a Spring Boot application whose only ZooKeeper
 * is a container found by {@code @ServiceConnection}, with a {@code @DistributedLock}
 * method. The lock must be taken in the container's ZooKeeper, so a plain Curator client
 * of its own, connected to the container's mapped port, sees the application's lock node
 * under {@code /locks/<key>} (the default {@code zklock.lock.root-path}) while the method
 * runs, and none after.
 * <p>
 * Needs a Docker engine that has the image (see
 * {@code src/test/docker/build-zookeeper-image.sh}); skipped without one, as on CI.
 */
@SpringBootTest(classes = ZooKeeperContainerDistributedLockApplicationTests.LockApplication.class,
		webEnvironment = WebEnvironment.NONE)
@Testcontainers(disabledWithoutDocker = true)
// The container stops after the class: a cached context would keep a client
// reconnecting to it for the rest of the run
@DirtiesContext
@Timeout(180)
class ZooKeeperContainerDistributedLockApplicationTests {

	private static final String LOCK_PATH = "/locks/report:daily";

	@Container
	@ServiceConnection
	static final GenericContainer<?> zookeeper = ZooKeeperContainers.zooKeeper("zookeeper:3.9");

	@Autowired
	Reports reports;

	@Autowired
	CuratorFramework applicationClient;

	@Test
	void lockNodeIsInTheContainersZooKeeperWhileTheMethodRuns() throws Exception {
		try (CuratorFramework observer = CuratorFrameworkFactory
			.newClient(zookeeper.getHost() + ":" + zookeeper.getMappedPort(2181), new RetryOneTime(100))) {
			observer.start();
			assertThat(observer.blockUntilConnected(60, TimeUnit.SECONDS)).isTrue();
			long applicationSession = this.applicationClient.getZookeeperClient().getZooKeeper().getSessionId();
			// Read while the method runs: the session owning each node under the lock
			// path, so the node seen is the application's lock and not a stray one
			List<Long> owners = this.reports.run("daily", () -> owners(observer, LOCK_PATH));
			assertThat(owners).containsExactly(applicationSession);
			// Eventually: a release need not wait for ZooKeeper's reply to its delete
			eventually().untilAsserted(() -> assertThat(children(observer, LOCK_PATH)).isEmpty());
		}
	}

	/**
	 * The children of a lock path; none when ZooKeeper has removed the path, which it
	 * does to an empty container node.
	 */
	private static List<String> children(CuratorFramework client, String path) throws Exception {
		try {
			return client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
	}

	/**
	 * The ephemeral owner (session id) of each child of a lock path.
	 */
	private static List<Long> owners(CuratorFramework client, String path) throws Exception {
		List<Long> owners = new ArrayList<>();
		for (String child : children(client, path)) {
			Stat stat = client.checkExists().forPath(path + "/" + child);
			owners.add((stat != null) ? stat.getEphemeralOwner() : 0L);
		}
		return owners;
	}

	/**
	 * A bean of the application with a locked method; the callable runs while the lock is
	 * held.
	 */
	public static class Reports {

		@DistributedLock(key = "'report:' + #name")
		public <T> T run(String name, Callable<T> whileLocked) throws Exception {
			return whileLocked.call();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Reports.class)
	static class LockApplication {

	}

}
