package dev.zklock.core.internal.mutex;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.internal.Engine;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mutex entry's count of reentrant holds, beside the entry: its limit is set through a
 * package-private hook rather than made one hold at a time.
 */
@Timeout(60)
class HoldCountTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void holdCountOverflowIsAnErrorAndKeepsTheLock() throws Exception {
		CuratorFramework client = this.zk.newClient();
		Engine engine = new Engine(client, ZkLockOptions.defaults());
		MutexEngine mutex = new MutexEngine(engine);
		DefaultZkLock lock = new DefaultZkLock(mutex, "deep", "/locks/deep");
		lock.lock();
		MutexEntry entry = mutex.entry("/locks/deep");
		assertThat(entry).isNotNull();
		entry.hold().countForTests(Integer.MAX_VALUE);
		assertThatThrownBy(lock::lock).isInstanceOf(Error.class).hasMessageContaining("Maximum lock count exceeded");
		assertThatThrownBy(lock::tryLock).isInstanceOf(Error.class);
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/deep")).hasSize(1));
		entry.hold().countForTests(1);
		lock.unlock();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/deep")).isEmpty());
		engine.close();
	}

}
