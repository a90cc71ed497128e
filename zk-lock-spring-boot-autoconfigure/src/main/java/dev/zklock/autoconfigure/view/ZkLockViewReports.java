package dev.zklock.autoconfigure.view;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.core.view.ViewOptions;

import org.springframework.context.SmartLifecycle;

/**
 * Publishes this instance's report for the cluster view
 * ({@link ZkLockRegistry#publishReports}) while the application runs: from its start,
 * until it stops. Starts early and stops late (a low phase), so that the report covers
 * the locks of every other component while they run.
 *
 * @author zk-lock
 */
public final class ZkLockViewReports implements SmartLifecycle {

	private final ZkLockRegistry registry;

	private final ViewOptions options;

	private volatile @Nullable AutoCloseable publishing;

	/**
	 * Create a new instance.
	 * @param registry the registry whose holds are reported
	 * @param options where to publish, and how often
	 */
	public ZkLockViewReports(ZkLockRegistry registry, ViewOptions options) {
		this.registry = registry;
		this.options = options;
	}

	@Override
	public void start() {
		if (this.publishing == null) {
			this.publishing = this.registry.publishReports(this.options);
		}
	}

	@Override
	public void stop() {
		AutoCloseable publishing = this.publishing;
		this.publishing = null;
		if (publishing != null) {
			try {
				publishing.close();
			}
			catch (Exception ex) {
				// Closing only deletes the report; its session deletes it anyway
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.publishing != null;
	}

	@Override
	public int getPhase() {
		return Integer.MIN_VALUE + 1024;
	}

}
