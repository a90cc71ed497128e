package dev.zklock.sample;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

import dev.zklock.autoconfigure.ZkLockProperties;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.jdbc.FencingTokenRejectedException;
import dev.zklock.sample.StockRepository.Fencing;
import dev.zklock.template.ZkLockTemplate;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The paused holder, shown in the shop: two holders of one SKU's lock, as two instances
 * of the shop would be. The first (a ZooKeeper session of its own) takes the lock, reads
 * the stock and is held back before its write; meanwhile its session ends on the server,
 * for real (a second handle on the same session closes it, as an expiry would: its lock
 * node is deleted), so the second holder, this shop, takes the lock and takes an order.
 * Then the first goes on and writes the stock it computed from its stale read. Two
 * interleavings: the second holder reads and writes before the stale write, or it reads
 * before the stale write and writes after it. Each is run with the stock's read and
 * update unfenced, with the update alone fenced, and with both fenced (the shop's
 * orders), counting what happened to the stale writes and to the second holder's update.
 * Each statement commits on its own, so that no row lock orders the two holders: what is
 * shown is what the fences do.
 *
 * @author zk-lock
 */
@Component
public class PausedHolderDemo {

	private static final int INITIAL_STOCK = 100;

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final StockRepository stock;

	private final ZkLockTemplate template;

	private final CuratorFramework curator;

	private final ZkLockProperties properties;

	private final JdbcClient jdbc;

	public PausedHolderDemo(StockRepository stock, ZkLockTemplate template, CuratorFramework curator,
			ZkLockProperties properties, JdbcClient jdbc) {
		this.stock = stock;
		this.template = template;
		this.curator = curator;
		this.properties = properties;
		this.jdbc = jdbc;
	}

	/**
	 * Run the demo.
	 * @param rounds the rounds of each run
	 * @return the report of both runs
	 * @throws Exception if a round fails unexpectedly
	 */
	public Report run(int rounds) throws Exception {
		return new Report(rounds, interleaving(rounds, false), interleaving(rounds, true));
	}

	private Interleaving interleaving(int rounds, boolean newerReadsFirst) throws Exception {
		String prefix = "demo-paused-" + (newerReadsFirst ? "reads-first-" : "writes-first-");
		return new Interleaving(run(prefix + "unfenced", rounds, Fencing.NONE, newerReadsFirst),
				run(prefix + "fenced-update", rounds, Fencing.UPDATE_ONLY, newerReadsFirst),
				run(prefix + "fenced-read", rounds, Fencing.READ_AND_UPDATE, newerReadsFirst));
	}

	private Run run(String sku, int rounds, Fencing fencing, boolean newerReadsFirst) throws Exception {
		int accepted = 0;
		int refused = 0;
		int lost = 0;
		for (int round = 0; round < rounds; round++) {
			this.stock.reset(sku, INITIAL_STOCK);
			Outcome outcome = round(sku, fencing, newerReadsFirst);
			if (outcome == Outcome.ACCEPTED) {
				accepted++;
			}
			else {
				refused++;
			}
			// Each accepted order took one unit: units ordered beyond what left the stock
			// are updates that a stale write overwrote
			int ordered = this.jdbc.sql("select coalesce(sum(qty), 0) from orders where sku = :sku")
				.param("sku", sku)
				.query(Integer.class)
				.single();
			lost += ordered - (INITIAL_STOCK - this.stock.stock(sku));
		}
		return new Run(accepted, refused, lost);
	}

	/**
	 * One round: returns what became of the paused holder's stale write.
	 */
	private Outcome round(String sku, Fencing fencing, boolean newerReadsFirst) throws Exception {
		String key = "stock:" + sku;
		String connectString = this.curator.getZookeeperClient().getCurrentConnectionString();
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.namespace(this.curator.getNamespace())
			.sessionTimeoutMs(10_000)
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		try (ZkLockRegistry registry = new ZkLockRegistry(client,
				ZkLockOptions.defaults().withRootPath(this.properties.getLock().getRootPath()))) {
			if (!client.blockUntilConnected((int) WAIT.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("The paused holder's client did not connect to " + connectString);
			}
			ZkLockTemplate paused = new ZkLockTemplate(registry, ObservationRegistry.NOOP);
			CountDownLatch read = new CountDownLatch(1);
			CountDownLatch resume = new CountDownLatch(1);
			Runnable heldBack = () -> {
				read.countDown();
				await(resume);
			};
			boolean[] wrote = new boolean[1];
			CompletableFuture<Boolean> first = CompletableFuture
				.supplyAsync(() -> paused.execute("stock", key, WAIT, () -> {
					this.stock.take(sku, 1, fencing, heldBack);
					wrote[0] = true;
					return Boolean.TRUE;
				}));
			awaitOrFail(read, first);
			expireOnServer(client.getZookeeperClient().getZooKeeper(), connectString);
			// The second holder: this shop, through the same lock as its orders
			if (!newerReadsFirst) {
				this.template.execute("stock", key, WAIT, () -> this.stock.take(sku, 1, fencing, () -> {
				}));
				resume.countDown();
				return outcome(first, wrote);
			}
			CountDownLatch secondRead = new CountDownLatch(1);
			CountDownLatch staleWriteDone = new CountDownLatch(1);
			CompletableFuture<OrderResult> second = CompletableFuture.supplyAsync(
					() -> this.template.execute("stock", key, WAIT, () -> this.stock.take(sku, 1, fencing, () -> {
						secondRead.countDown();
						await(staleWriteDone);
					})));
			awaitOrFail(secondRead, second);
			resume.countDown();
			Outcome outcome;
			try {
				outcome = outcome(first, wrote);
			}
			finally {
				staleWriteDone.countDown();
			}
			second.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			return outcome;
		}
		finally {
			client.close();
		}
	}

	/**
	 * What became of the first holder's stale write.
	 */
	private static Outcome outcome(CompletableFuture<Boolean> first, boolean[] wrote) throws Exception {
		try {
			first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			// The first holder learns at its release that it lost the lock: after its
			// write, whatever became of it
			if (refusal(ex.getCause()) != null) {
				return Outcome.REFUSED;
			}
			if (!wrote[0]) {
				throw ex;
			}
		}
		return Outcome.ACCEPTED;
	}

	/**
	 * End a session on the server, as its expiry does: a second handle on the same
	 * session takes its connection over, then closes the session. Its ephemeral nodes
	 * (the lock node) are deleted; the first handle hears of it only when it next talks
	 * to the server.
	 */
	private static void expireOnServer(ZooKeeper zooKeeper, String connectString) throws Exception {
		CountDownLatch connected = new CountDownLatch(1);
		ZooKeeper twin = new ZooKeeper(connectString, 10_000, (event) -> {
			if (event.getState() == KeeperState.SyncConnected) {
				connected.countDown();
			}
		}, zooKeeper.getSessionId(), zooKeeper.getSessionPasswd());
		try {
			if (!connected.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("Could not reach the paused holder's session");
			}
		}
		finally {
			twin.close();
		}
	}

	private static @Nullable FencingTokenRejectedException refusal(@Nullable Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof FencingTokenRejectedException refused) {
				return refused;
			}
			for (Throwable suppressed : cause.getSuppressed()) {
				FencingTokenRejectedException found = refusal(suppressed);
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	private static void awaitOrFail(CountDownLatch latch, CompletableFuture<?> work) throws Exception {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (!latch.await(50, TimeUnit.MILLISECONDS)) {
			if (work.isDone()) {
				work.get();
				throw new IllegalStateException("The paused holder ended before it read the stock");
			}
			if (System.nanoTime() > deadline) {
				throw new TimeoutException("The paused holder did not read the stock in " + WAIT);
			}
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("The paused holder was not resumed in " + WAIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private enum Outcome {

		ACCEPTED, REFUSED

	}

	/**
	 * One run of the demo.
	 *
	 * @param staleWritesAccepted rounds whose stale write was applied
	 * @param staleWritesRefused rounds whose stale write was refused
	 * @param lostUpdates updates of the second holder that a stale write overwrote
	 */
	public record Run(int staleWritesAccepted, int staleWritesRefused, int lostUpdates) {
	}

	/**
	 * The runs of one interleaving.
	 *
	 * @param unfenced a plain read and a plain update
	 * @param fencedUpdate a plain read and a fenced update
	 * @param fencedRead a fenced read and a fenced update, as the shop's orders
	 */
	public record Interleaving(Run unfenced, Run fencedUpdate, Run fencedRead) {
	}

	/**
	 * The demo's report.
	 *
	 * @param rounds the rounds of each run
	 * @param newerHolderWritesFirst the runs whose second holder reads and writes before
	 * the stale write
	 * @param newerHolderReadsFirst the runs whose second holder reads before the stale
	 * write and writes after it
	 */
	public record Report(int rounds, Interleaving newerHolderWritesFirst, Interleaving newerHolderReadsFirst) {
	}

}
