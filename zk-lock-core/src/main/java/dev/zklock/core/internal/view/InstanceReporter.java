package dev.zklock.core.internal.view;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.internal.DaemonTimers;
import dev.zklock.core.internal.Engine;
import dev.zklock.core.view.ViewOptions;

/**
 * Publishes this instance's report: one ephemeral node per session, named by the session,
 * under the instances path. Every report interval it builds the report; it writes it when
 * it changed, and at least every heartbeat, so that readers can tell a silent instance by
 * its report's age. Nothing is written while the client is not connected: the report of a
 * suspended instance ages, which is what makes it silent to others.
 */
public final class InstanceReporter implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(InstanceReporter.class);

	private final CuratorFramework client;

	private final Engine engine;

	private final Supplier<List<LocalLockInfo>> locals;

	private final ViewOptions options;

	private final String participantId;

	private final ScheduledThreadPoolExecutor timer;

	/** The session whose node was last written, 0 if none: only the timer's thread. */
	private long writtenSession;

	private byte @Nullable [] written;

	private long writtenAtNanos;

	private volatile boolean closed;

	public InstanceReporter(CuratorFramework client, Engine engine, Supplier<List<LocalLockInfo>> locals,
			ViewOptions options, String participantId) {
		this.client = client;
		this.engine = engine;
		this.locals = locals;
		this.options = options;
		this.participantId = participantId;
		this.timer = DaemonTimers.idle("zklock-report");
	}

	/**
	 * Start publishing: the first report at once, then every report interval.
	 */
	public void start() {
		long interval = this.options.reportInterval().toNanos();
		this.timer.scheduleWithFixedDelay(this::publish, 0, interval, TimeUnit.NANOSECONDS);
	}

	/**
	 * The path of the node of a session's report.
	 */
	public static String reportPath(ViewOptions options, long sessionId) {
		return ZKPaths.makePath(options.instancesPath(), Long.toHexString(sessionId));
	}

	void publish() {
		long session = this.engine.sessionIfConnected();
		if (this.closed || session == 0) {
			return;
		}
		try {
			InstanceReport report = InstanceReport.of(this.participantId, this.engine.connectionStatus(),
					this.locals.get());
			byte[] data = report.toBytes();
			boolean due = System.nanoTime() - this.writtenAtNanos >= this.options.heartbeat().toNanos();
			if (session == this.writtenSession && !due && Arrays.equals(data, this.written)) {
				return;
			}
			String path = reportPath(this.options, session);
			if (session != this.writtenSession) {
				try {
					this.client.create()
						.creatingParentContainersIfNeeded()
						.withMode(CreateMode.EPHEMERAL)
						.forPath(path, data);
				}
				catch (KeeperException.NodeExistsException ex) {
					this.client.setData().forPath(path, data);
				}
			}
			else {
				this.client.setData().forPath(path, data);
			}
			this.writtenSession = session;
			this.written = data;
			this.writtenAtNanos = System.nanoTime();
		}
		catch (KeeperException.NoNodeException ex) {
			// Deleted by someone else: made again at the next round
			this.writtenSession = 0;
		}
		catch (Exception ex) {
			logger.debug("Could not publish the report of {}: {}", this.participantId, ex.toString());
		}
	}

	/**
	 * Stop publishing and delete the report, so that readers see the instance gone at
	 * once rather than when its session ends.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.timer.shutdown();
		try {
			if (this.timer.awaitTermination(5, TimeUnit.SECONDS) && this.writtenSession != 0
					&& this.engine.sessionIfConnected() == this.writtenSession) {
				this.client.delete().forPath(reportPath(this.options, this.writtenSession));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			logger.debug("Could not delete the report of {}: {}", this.participantId, ex.toString());
		}
	}

}
