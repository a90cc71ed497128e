package dev.zklock.core;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Threads for the blocking tasks of tests ({@code CompletableFuture.supplyAsync(task,
 * TestThreads.EXECUTOR)}): the common pool may have one worker on a 2-core machine (Java
 * 25 uses it even then), and a task that blocks there keeps the next task from starting.
 */
public final class TestThreads {

	/**
	 * A thread per task when none is idle; daemon threads, so no test JVM waits for them.
	 */
	public static final Executor EXECUTOR = newExecutor();

	private TestThreads() {
	}

	private static ExecutorService newExecutor() {
		return Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "test-task");
			thread.setDaemon(true);
			return thread;
		});
	}

}
