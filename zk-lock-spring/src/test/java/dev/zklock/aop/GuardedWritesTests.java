package dev.zklock.aop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.DistributedSemaphore;
import dev.zklock.core.GuardedWriteRefusedException;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLease;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.template.LockContext;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Guarded ZooKeeper writes from a locked method, through {@link LockContext}: the state
 * in ZooKeeper changes only while the method's lock node stands, on a real ZooKeeper
 * server.
 */
@Timeout(60)
class GuardedWritesTests {

	private static final String STOCK = "/shop/stock/42";

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

	private CuratorFramework other;

	private Shop shop;

	private ZkLockTemplate template;

	private CuratorFramework client;

	@BeforeEach
	void start() throws Exception {
		this.other = this.zk.newClient();
		this.other.create().creatingParentsIfNeeded().forPath(STOCK, bytes(10));
		AnnotationConfigApplicationContext context = LockedContext.start(this.zk, (c) -> {
			c.registerBean(ZkLockTemplate.class,
					() -> new ZkLockTemplate(c.getBean(ZkLockRegistry.class), ObservationRegistry.NOOP));
			c.registerBean(Shop.class);
		});
		this.contexts.add(context);
		this.shop = context.getBean(Shop.class);
		this.template = context.getBean(ZkLockTemplate.class);
		this.client = context.getBean(CuratorFramework.class);
	}

	@AfterEach
	void close() {
		this.contexts.forEach(AnnotationConfigApplicationContext::close);
	}

	@Test
	void aLockedMethodWritesThroughItsGuard() throws Exception {
		this.shop.take("42", 3, () -> {
		});
		assertThat(stock()).isEqualTo(7);
		this.shop.takeWithPermit("42", 2);
		assertThat(stock()).isEqualTo(5);
	}

	@Test
	void aLockedMethodWhoseLockNodeIsGoneWritesNothing() throws Exception {
		assertThatExceptionOfType(GuardedWriteRefusedException.class)
			.isThrownBy(() -> this.shop.take("42", 3, this::deleteTheLockNode))
			.withMessageContaining("lock 'stock:42'")
			.withMessageContaining("nothing written");
		assertThat(stock()).isEqualTo(10);
	}

	@Test
	void aTemplateLeaseGuardsThroughItself() throws Exception {
		CuratorFramework client = this.client;
		ZkLease lease = this.template.acquireLease("stock", List.of("stock:42"), Duration.ofSeconds(10));
		try {
			lease.guardedTransaction().forOperations(client.transactionOp().setData().forPath(STOCK, bytes(1)));
			assertThatExceptionOfType(UnsupportedOperationException.class)
				.isThrownBy(() -> this.template.runInContext(lease, () -> LockContext.current().guardedTransaction()))
				.withMessageContaining("use the lease's own guardedTransaction()");
		}
		finally {
			lease.release();
		}
		assertThat(stock()).isEqualTo(1);
	}

	private void deleteTheLockNode() {
		try {
			String lockPath = "/locks/stock:42";
			this.other.delete().forPath(lockPath + "/" + this.zk.children(lockPath).get(0));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private int stock() throws Exception {
		return Integer.parseInt(new String(this.other.getData().forPath(STOCK), StandardCharsets.UTF_8));
	}

	private static byte[] bytes(int value) {
		return Integer.toString(value).getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Keeps its stock in ZooKeeper.
	 */
	static class Shop {

		final CuratorFramework client;

		Shop(CuratorFramework client) {
			this.client = client;
		}

		/**
		 * Take from the stock; {@code between} runs between the read and the write.
		 */
		@DistributedLock(key = "'stock:' + #sku", waitAtMost = "10s")
		public void take(String sku, int quantity, Runnable between) throws Exception {
			Stat stat = new Stat();
			int stock = Integer.parseInt(new String(
					this.client.getData().storingStatIn(stat).forPath("/shop/stock/" + sku), StandardCharsets.UTF_8));
			between.run();
			LockContext.current()
				.guardedTransaction()
				.forOperations(this.client.transactionOp()
					.setData()
					.withVersion(stat.getVersion())
					.forPath("/shop/stock/" + sku, bytes(stock - quantity)));
		}

		@DistributedSemaphore(key = "'restock:' + #sku", permits = 1, waitAtMost = "10s")
		public void takeWithPermit(String sku, int quantity) throws Exception {
			int stock = Integer
				.parseInt(new String(this.client.getData().forPath("/shop/stock/" + sku), StandardCharsets.UTF_8));
			LockContext.current()
				.guardedTransaction()
				.forOperations(
						this.client.transactionOp().setData().forPath("/shop/stock/" + sku, bytes(stock - quantity)));
		}

	}

}
