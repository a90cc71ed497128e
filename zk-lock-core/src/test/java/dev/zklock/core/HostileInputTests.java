package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.InProcessZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Input that would write into ZooKeeper's reserved tree, or make one call take thousands
 * of keys, is refused with a message naming it, and nothing is written; a lock on several
 * keys whose wait runs out part-way says so truthfully.
 */
@Timeout(60)
class HostileInputTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void rootPathsInZooKeepersReservedTreeOrMalformedAreRefused() {
		assertRootPathRefused("/zookeeper",
				"must not be ZooKeeper's reserved tree /zookeeper or inside it, " + "but was '/zookeeper'");
		assertRootPathRefused("/zookeeper/quota", "but was '/zookeeper/quota'");
		assertRootPathRefused("/zookeeper/config/x", "but was '/zookeeper/config/x'");
		assertRootPathRefused("/", "must not be '/'");
		assertRootPathRefused("zookeeper", "must be absolute (start with '/'), but was 'zookeeper'");
		assertRootPathRefused("/a/../zookeeper",
				"must not contain empty, '.' or '..' segments, but was " + "'/a/../zookeeper'");
		assertRootPathRefused("/a/./b", "but was '/a/./b'");
		assertRootPathRefused("/a//b", "but was '/a//b'");
		assertRootPathRefused("/locks/", "must not end with '/', but was '/locks/'");
		assertRootPathRefused("/lo\ncks", "'/lo\\u000Acks' is not a valid ZooKeeper path");
		assertRootPathRefused("/x\u0007/", "must not end with '/', but was '/x\\u0007/'");
		// Only the segment itself is reserved
		assertThat(ZkLockOptions.defaults().withRootPath("/zookeepers").rootPath()).isEqualTo("/zookeepers");
		assertThat(ZkLockOptions.defaults().withRootPath("/app/zookeeper").rootPath()).isEqualTo("/app/zookeeper");
	}

	private static void assertRootPathRefused(String rootPath, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> ZkLockOptions.defaults().withRootPath(rootPath))
			.withMessageContaining(message);
	}

	@Test
	void aNamespaceThatPutsTheLocksInTheReservedTreeIsRefused() throws Exception {
		List<String> before = tree();
		CuratorFramework client = this.zk.newClient().usingNamespace("zookeeper");
		assertThatIllegalArgumentException().isThrownBy(() -> new ZkLockRegistry(client))
			.withMessage("The Curator namespace 'zookeeper' and the lock root path '/locks' would put the locks at "
					+ "/zookeeper/locks, inside ZooKeeper's reserved tree /zookeeper");
		CuratorFramework quota = this.zk.newClient().usingNamespace("zookeeper/quota");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ZkLockRegistry(quota, ZkLockOptions.defaults().withRootPath("/app")))
			.withMessageContaining("/zookeeper/quota/app");
		assertThat(tree()).isEqualTo(before);
	}

	@Test
	void tooManyKeysForOneCallAreRefusedBeforeAnyRequest() throws Exception {
		List<String> before = tree();
		ZkLockRegistry registry = this.zk.newRegistry();
		List<String> keys = IntStream.range(0, 10_000).mapToObj((i) -> String.format("k%05d", i)).toList();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtainAll(keys))
			.withMessage("A lock on several keys takes at most 64 distinct keys (maxKeysPerCall), but 10000 were "
					+ "given, from 'k00000' to 'k09999': lock fewer keys at once, or a coarser key");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtainAllReadWrite(keys))
			.withMessageContaining("at most 64 distinct keys (maxKeysPerCall), but 10000 were given");
		// 64 are allowed; duplicates count once
		List<String> sixtyFour = new ArrayList<>(keys.subList(0, 64));
		sixtyFour.addAll(keys.subList(0, 64));
		assertThat(registry.obtainAll(sixtyFour).path()).startsWith("[/locks/k00000, ");
		ZkLockRegistry three = this.zk.newRegistry(ZkLockOptions.defaults().withMaxKeysPerCall(3));
		assertThatIllegalArgumentException().isThrownBy(() -> three.obtainAll(List.of("a", "b", "c", "d")))
			.withMessageContaining("at most 3 distinct keys (maxKeysPerCall), but 4 were given");
		assertThat(tree()).isEqualTo(before);
		assertThatIllegalArgumentException().isThrownBy(() -> ZkLockOptions.defaults().withMaxKeysPerCall(0))
			.withMessage("maxKeysPerCall must be at least 1, but was 0");
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
