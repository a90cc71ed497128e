package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.test.ServerSideExpiry;
import dev.zklock.test.ZkFaultProxy;
import dev.zklock.test.InProcessZooKeeper;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Guarded ZooKeeper writes on a real ZooKeeper server: a Curator transaction that applies
 * only while the lock node behind the hold stands, and otherwise writes nothing.
 */
@Timeout(60)
class GuardedTransactionTests {

	private static final String STATE = "/shop/stock";

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perTest();

	/** Another process: it reads the state, and deletes nodes as an operator would. */
	private CuratorFramework other;

	@BeforeEach
	void createTheState() throws Exception {
		this.other = this.zk.newClient();
		this.other.create().creatingParentsIfNeeded().forPath(STATE, bytes("10"));
	}

	@Test
	void aHeldLockAppliesTheOperationsAndReturnsTheirResults() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLock lock = registry.obtain("stock");
		lock.lock();
		try {
			List<CuratorTransactionResult> results = lock.guardedTransaction()
				.forOperations(client.transactionOp().setData().withVersion(0).forPath(STATE, bytes("9")),
						client.transactionOp().create().forPath(STATE + "/order-1", bytes("1")));
			assertThat(results).extracting(CuratorTransactionResult::getType)
				.containsExactly(OperationType.SET_DATA, OperationType.CREATE);
			assertThat(results).extracting(CuratorTransactionResult::getForPath)
				.containsExactly(STATE, STATE + "/order-1");
			assertThat(results.get(0).getResultStat().getVersion()).isEqualTo(1);
			assertThat(results.get(1).getResultPath()).isEqualTo(STATE + "/order-1");
			assertThat(results).extracting(CuratorTransactionResult::getError).containsOnly(0);
		}
		finally {
			lock.unlock();
		}
		assertThat(state()).isEqualTo("9");
		assertThat(this.other.checkExists().forPath(STATE + "/order-1")).isNotNull();
	}

	@Test
	void aLockNodeDeletedByAnotherClientRefusesTheTransactionAndWritesNothing() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLock lock = registry.obtain("stock");
		lock.lock();
		try {
			String node = deleteTheNodeOf(lock);
			// Nothing watches the node: this JVM still believes it holds the lock
			assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
			assertThatExceptionOfType(GuardedWriteRefusedException.class)
				.isThrownBy(() -> lock.guardedTransaction()
					.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9")),
							client.transactionOp().create().forPath(STATE + "/order-1")))
				.withMessageContaining("lock 'stock'")
				.withMessageContaining(node)
				.withMessageContaining("nothing written")
				.withMessageContaining("no longer exists")
				.withCauseInstanceOf(KeeperException.NoNodeException.class)
				.satisfies((ex) -> {
					assertThat(ex.getKey()).isEqualTo("stock");
					assertThat(ex.getPath()).isEqualTo(lock.path());
					assertThat(ex.getNodePath()).isEqualTo(node);
					assertThat(ex).isInstanceOf(LockLostException.class);
				});
		}
		finally {
			unlockLost(lock);
		}
		assertThat(state()).isEqualTo("10");
		assertThat(this.other.checkExists().forPath(STATE + "/order-1")).isNull();
	}

	/**
	 * After the client's session expired, Curator opens a new one, and the old node stays
	 * on the server until the server expires the old session: a {@code check} of the old
	 * node alone would pass. The transaction must apply only in the node's own session.
	 * Here another connection keeps the old session alive on the server meanwhile, so
	 * that its node is certainly still there.
	 */
	@Test
	void aSessionExpiredOnTheClientRefusesTheTransactionWhileItsOldNodeStillExists() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		ZkLockRegistry registry = this.zk.newRegistry(client);
		ZkLock lock = registry.obtain("stock");
		lock.lock();
		try {
			String node = lock.path() + "/" + this.zk.children(lock.path()).get(0);
			ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
			long session = handle.getSessionId();
			// Cut off first: the old handle cannot close its session on the server
			proxy.refuse(true);
			ServerSideExpiry.expire(this.zk.connectString(), session, handle.getSessionPasswd(),
					(int) InProcessZooKeeper.SESSION_TIMEOUT.toMillis(), Duration.ofSeconds(10), () -> {
						handle.getTestable().injectSessionExpiration();
						proxy.refuse(false);
						eventually().until(() -> lock.leaseState() == LeaseState.LOST
								&& client.getZookeeperClient().getZooKeeper().getSessionId() != session
								&& client.getZookeeperClient().isConnected());
						try {
							assertThat(this.other.checkExists().forPath(node))
								.as("the old session's node, kept alive by the other connection")
								.isNotNull();
						}
						catch (Exception ex) {
							throw new IllegalStateException(ex);
						}
						assertThatExceptionOfType(GuardedWriteRefusedException.class)
							.isThrownBy(() -> lock.guardedTransaction()
								.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9"))))
							.withMessageContaining("lock 'stock'")
							.withMessageContaining(node)
							.withMessageContaining("session expired");
					});
		}
		finally {
			unlockLost(lock);
		}
		assertThat(state()).isEqualTo("10");
	}

	/**
	 * The paused holder: cut off from the server, it cannot hear that the server expired
	 * its session and deleted its node; it writes anyway.
	 */
	@Test
	void aSessionExpiredOnTheServerWhileTheHolderIsCutOffWritesNothing() throws Exception {
		ZkFaultProxy proxy = this.zk.newProxy();
		CuratorFramework client = this.zk.newClient(proxy.connectString());
		ZkLockRegistry registry = this.zk.newRegistry(client);
		ZkLock lock = registry.obtain("stock");
		lock.lock();
		try {
			String node = lock.path() + "/" + this.zk.children(lock.path()).get(0);
			long session = client.getZookeeperClient().getZooKeeper().getSessionId();
			byte[] password = client.getZookeeperClient().getZooKeeper().getSessionPasswd();
			proxy.refuse(true);
			assertThat(ServerSideExpiry.expire(this.zk.connectString(), session, password,
					(int) InProcessZooKeeper.SESSION_TIMEOUT.toMillis(), Duration.ofSeconds(10), () -> {
					}))
				.isEqualTo(session);
			assertThat(this.other.checkExists().forPath(node)).as("deleted by the server").isNull();
			// The holder's own thread writes: the hold belongs to it. Its multi waits in
			// the client's queue until the next connection attempt fails
			Throwable failure = catchThrowable(() -> lock.guardedTransaction()
				.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9"))));
			// It cannot reach the server in its session: refused, or failed with the
			// connection, never applied
			assertThat(failure).as("the cut-off holder's write")
				.isInstanceOfAny(GuardedWriteRefusedException.class, KeeperException.ConnectionLossException.class,
						KeeperException.SessionExpiredException.class);
			proxy.refuse(false);
			eventually().until(() -> lock.leaseState() == LeaseState.LOST);
			assertThatExceptionOfType(GuardedWriteRefusedException.class).isThrownBy(() -> lock.guardedTransaction()
				.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9"))));
		}
		finally {
			unlockLost(lock);
		}
		assertThat(state()).isEqualTo("10");
	}

	@Test
	void aLockNotHeldByTheCallingThreadWritesNothing() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLock lock = registry.obtain("stock");
		CuratorOp write = client.transactionOp().setData().forPath(STATE, bytes("9"));
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> lock.guardedTransaction().forOperations(write))
			.withMessageContaining("'stock'");
		GuardedTransaction guarded = lock.guardedTransaction();
		CompletableFuture.runAsync(lock::lock, TestThreads.EXECUTOR).get(20, TimeUnit.SECONDS);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(() -> guarded.forOperations(write))
			.withMessageContaining("'stock'")
			.withMessageContaining("not held by the current thread");
		assertThat(state()).isEqualTo("10");
	}

	@Test
	void noOperationChecksTheHeldNodeOnly() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		ZkLock lock = registry.obtain("stock");
		lock.lock();
		try {
			assertThat(lock.guardedTransaction().forOperations()).isEmpty();
			assertThat(lock.guardedTransaction().forOperations(List.of())).isEmpty();
			deleteTheNodeOf(lock);
			// This JVM has heard nothing; the check asks the server
			assertThat(lock.leaseState()).isEqualTo(LeaseState.HELD);
			assertThatExceptionOfType(GuardedWriteRefusedException.class)
				.isThrownBy(() -> lock.guardedTransaction().forOperations())
				.withMessageContaining("no longer exists");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> lock.guardedTransaction().forOperations(Arrays.asList((CuratorOp) null)))
				.withMessageContaining("no null operation");
		}
		finally {
			unlockLost(lock);
		}
	}

	@Test
	void aFailedOperationFailsTheTransactionAsZooKeeperReportsIt() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLock lock = registry.obtain("stock");
		lock.lock();
		try {
			assertThatExceptionOfType(KeeperException.BadVersionException.class)
				.isThrownBy(() -> lock.guardedTransaction()
					.forOperations(client.transactionOp().create().forPath(STATE + "/order-1"),
							client.transactionOp().setData().withVersion(7).forPath(STATE, bytes("9"))))
				.satisfies((ex) -> assertThat(ex.getResults()).as("the check's, then the operations'").hasSize(3));
		}
		finally {
			lock.unlock();
		}
		assertThat(state()).isEqualTo("10");
		assertThat(this.other.checkExists().forPath(STATE + "/order-1")).isNull();
	}

	@Test
	void aLeaseGuardsFromAnyThreadUntilReleased() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLease lease = registry.acquireLease("stock", Duration.ofSeconds(10));
		GuardedTransaction guarded = lease.guardedTransaction();
		CompletableFuture.runAsync(() -> {
			try {
				guarded.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9")));
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR).get(20, TimeUnit.SECONDS);
		assertThat(state()).isEqualTo("9");
		lease.release();
		assertThatIllegalStateException()
			.isThrownBy(() -> guarded.forOperations(client.transactionOp().setData().forPath(STATE, bytes("8"))))
			.withMessageContaining("'stock'")
			.withMessageContaining("released");
		assertThat(state()).isEqualTo("9");
	}

	@Test
	void aLeaseWhoseNodeWasDeletedWritesNothing() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLease lease = registry.acquireLease("stock", Duration.ofSeconds(10));
		try {
			deleteTheNodeOf(registry.obtain("stock"));
			assertThatExceptionOfType(GuardedWriteRefusedException.class).isThrownBy(() -> lease.guardedTransaction()
				.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9"))));
		}
		finally {
			releaseLost(lease);
		}
		assertThat(state()).isEqualTo("10");
	}

	@Test
	void bothSidesOfAReadWriteLockGuard() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkReadWriteLock lock = registry.obtainReadWrite("stock");
		lock.writeLock().lock();
		try {
			lock.writeLock()
				.guardedTransaction()
				.forOperations(client.transactionOp().setData().forPath(STATE, bytes("9")));
		}
		finally {
			lock.writeLock().unlock();
		}
		lock.readLock().lock();
		try {
			lock.readLock()
				.guardedTransaction()
				.forOperations(client.transactionOp().create().forPath(STATE + "/seen"));
			deleteTheNodeOf(lock.readLock());
			assertThatExceptionOfType(GuardedWriteRefusedException.class).isThrownBy(() -> lock.readLock()
				.guardedTransaction()
				.forOperations(client.transactionOp().setData().forPath(STATE, bytes("8"))));
		}
		finally {
			unlockLost(lock.readLock());
		}
		assertThat(state()).isEqualTo("9");
		assertThat(this.other.checkExists().forPath(STATE + "/seen")).isNotNull();
	}

	@Test
	void aSemaphorePermitGuardsWithItsOwnNode() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkSemaphore semaphore = registry.obtainSemaphore("pool", 2);
		ZkLease permit = semaphore.acquire(Duration.ofSeconds(10));
		try {
			permit.guardedTransaction().forOperations(client.transactionOp().setData().forPath(STATE, bytes("9")));
			String leases = semaphore.path() + "/leases";
			this.other.delete().forPath(leases + "/" + this.zk.children(leases).get(0));
			assertThatExceptionOfType(GuardedWriteRefusedException.class)
				.isThrownBy(() -> permit.guardedTransaction()
					.forOperations(client.transactionOp().setData().forPath(STATE, bytes("8"))))
				.withMessageContaining("lock 'pool'");
		}
		finally {
			releaseLost(permit);
		}
		assertThat(state()).isEqualTo("9");
	}

	@Test
	void aLockOnSeveralKeysChecksEveryKeysNode() throws Exception {
		ZkLockRegistry registry = this.zk.newRegistry();
		CuratorFramework client = registry.getClient();
		ZkLock both = registry.obtainAll(List.of("b", "a"));
		both.lock();
		try {
			both.guardedTransaction().forOperations(client.transactionOp().setData().forPath(STATE, bytes("9")));
			String node = deleteTheNodeOf(registry.obtain("b"));
			assertThatExceptionOfType(GuardedWriteRefusedException.class)
				.isThrownBy(() -> both.guardedTransaction()
					.forOperations(client.transactionOp().setData().forPath(STATE, bytes("8"))))
				.withMessageContaining("lock 'b'")
				.withMessageContaining(node);
		}
		finally {
			unlockLost(both);
		}
		assertThat(state()).isEqualTo("9");
	}

	@Test
	void resultPathsAreRelativeToTheClientsNamespace() throws Exception {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(this.zk.connectString())
			.namespace("app")
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		try {
			ZkLockRegistry registry = this.zk.newRegistry(client);
			ZkLock lock = registry.obtain("stock");
			lock.lock();
			try {
				List<CuratorTransactionResult> results = lock.guardedTransaction()
					.forOperations(client.transactionOp()
						.create()
						.withMode(CreateMode.PERSISTENT_SEQUENTIAL)
						.forPath("/order-"));
				assertThat(results.get(0).getResultPath()).startsWith("/order-0");
				assertThat(this.other.checkExists().forPath("/app" + results.get(0).getResultPath())).isNotNull();
			}
			finally {
				lock.unlock();
			}
		}
		finally {
			client.close();
		}
	}

	/**
	 * Delete the node behind a hold with another client, as an operator would.
	 * @return the deleted node's path
	 */
	private String deleteTheNodeOf(ZkLock lock) throws Exception {
		String node = lock.path() + "/" + this.zk.children(lock.path()).get(0);
		this.other.delete().forPath(node);
		return node;
	}

	private String state() throws Exception {
		return new String(this.other.getData().forPath(STATE), StandardCharsets.UTF_8);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Unlock a hold that may be known lost by now: the lock is released all the same.
	 */
	private static void unlockLost(ZkLock lock) {
		try {
			lock.unlock();
		}
		catch (LockLostException ex) {
			// Released
		}
	}

	private static void releaseLost(ZkLease lease) {
		try {
			lease.release();
		}
		catch (LockLostException ex) {
			// Released
		}
	}

}
