package dev.zklock.core.internal;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The engine's timers: each of one daemon thread that goes away while it has nothing to
 * run, so that an idle registry keeps no thread and never keeps a JVM from exiting.
 */
public final class DaemonTimers {

	private DaemonTimers() {
	}

	/**
	 * A timer whose one daemon thread, named {@code name}, is started at the first task
	 * and ends a second after the last.
	 */
	public static ScheduledThreadPoolExecutor idle(String name) {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		});
		timer.setKeepAliveTime(1, TimeUnit.SECONDS);
		timer.allowCoreThreadTimeOut(true);
		return timer;
	}

}
