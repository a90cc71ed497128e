package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.UnlockedSelfCall;
import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static dev.zklock.test.InProcessZooKeeper.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A method that returns a {@code CompletionStage} holds its lock until the stage
 * completes, however it completes, checked from another ZooKeeper session (another JVM,
 * to the server).
 */
@Timeout(60)
class AsyncLockingTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private AnnotationConfigApplicationContext context;

	private ZkLockRegistry otherJvm;

	private Jobs jobs;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private void start() throws Exception {
		this.context = LockedContext.start(this.zk, (context) -> context.register(JobsConfiguration.class));
		this.jobs = this.context.getBean(Jobs.class);
		this.otherJvm = this.zk.newRegistry();
	}

	@Test
	void lockIsHeldUntilTheFutureCompletes() throws Exception {
		start();
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<String> result = this.jobs.run("report", finish);
		eventually().until(() -> this.jobs.started().getCount() == 0);
		// The method has returned; the work goes on, and so does the lock
		assertThat(result).isNotDone();
		assertThat(this.otherJvm.obtain("job:report").tryLock()).isFalse();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:report")).hasSize(1));
		finish.countDown();
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("held");
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:report")).isEmpty());
		assertThat(tryAndRelease(this.otherJvm.obtain("job:report"))).isTrue();
	}

	@Test
	void lockIsReleasedWhenTheFutureFails() throws Exception {
		start();
		CompletableFuture<String> result = this.jobs.fail("broken");
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
			.withRootCauseInstanceOf(IllegalStateException.class);
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:broken")).isEmpty());
	}

	@Test
	void cancellingOrTimingOutTheReturnedFutureDoesNotEndTheHoldWhileTheWorkRuns() throws Exception {
		start();
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<String> result = this.jobs.run("cancelled", finish);
		eventually().until(() -> this.jobs.started().getCount() == 0);
		assertThat(result.cancel(true)).isTrue();
		assertThat(result.orTimeout(1, TimeUnit.MILLISECONDS)).isCompletedExceptionally();
		// The work still runs, so the lock stays: its node goes only after the work ends
		List<String> nodes = this.zk.children("/locks/job:cancelled");
		assertThat(nodes).hasSize(1);
		AtomicBoolean workEnded = new AtomicBoolean();
		CompletableFuture<Boolean> deletedAfterTheWork = new CompletableFuture<>();
		Stat watched = this.otherJvm.getClient().checkExists().usingWatcher((Watcher) (event) -> {
			if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
				deletedAfterTheWork.complete(workEnded.get());
			}
		}).forPath("/locks/job:cancelled/" + nodes.get(0));
		assertThat(watched).isNotNull();
		assertThat(this.otherJvm.obtain("job:cancelled").tryLock()).isFalse();
		workEnded.set(true);
		finish.countDown();
		assertThat(deletedAfterTheWork.get(10, TimeUnit.SECONDS)).isTrue();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:cancelled")).isEmpty());
	}

	@Test
	void aStageThatRefusesIsDoneIsReleasedToo() throws Exception {
		start();
		CompletionStage<String> minimal = this.jobs.minimal("minimal");
		assertThat(minimal.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("done");
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:minimal")).isEmpty());
		assertThat(this.context.getBean(ZkLockRegistry.class).heldCount()).isZero();
		assertThat(tryAndRelease(this.otherJvm.obtain("job:minimal"))).isTrue();
	}

	@Test
	void aMethodDeclaredToReturnAValueThatReturnsPendingWorkFails() throws Exception {
		start();
		assertThatIllegalStateException().isThrownBy(() -> this.jobs.sneaky("sneaky"))
			.withMessageContaining("is declared to return java.lang.Object but returned a "
					+ "java.util.concurrent.CompletableFuture");
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:sneaky")).isEmpty());
	}

	@Test
	void lockIsReleasedAtOnceWhenTheMethodThrows() throws Exception {
		start();
		assertThatIllegalStateException().isThrownBy(() -> this.jobs.throwBeforeStarting("early"));
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:early")).isEmpty());
		assertThat(tryAndRelease(this.otherJvm.obtain("job:early"))).isTrue();
	}

	@Test
	void theSynchronousPartHoldsTheLockOnTheCallingThread() throws Exception {
		start();
		CompletionStage<Boolean> stage = this.jobs.heldWhileStarting("sync-part");
		assertThat(stage.toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:sync-part")).isEmpty());
	}

	@Test
	void aThreadThatHoldsTheKeyCannotStartLockedAsynchronousWorkOnIt() throws Exception {
		start();
		ZkLock lock = this.context.getBean(ZkLockRegistry.class).obtain("job:nested");
		lock.lock();
		try {
			assertThatIllegalStateException().isThrownBy(() -> this.jobs.run("nested", new CountDownLatch(0)))
				.withMessageContaining("already holds it");
		}
		finally {
			lock.unlock();
		}
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:nested")).isEmpty());
	}

	@Test
	void asyncMethodsKeepLockingAndReenteringOnTheirOwnThread() throws Exception {
		start();
		CompletableFuture<String> result = this.jobs.asyncOuter("async");
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("inner held on " + "async");
		eventually().untilAsserted(() -> assertThat(this.zk.children("/locks/job:async")).isEmpty());
	}

	private static boolean tryAndRelease(ZkLock lock) {
		if (lock.tryLock()) {
			lock.unlock();
			return true;
		}
		return false;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class JobsConfiguration {

		@Bean(destroyMethod = "shutdownNow")
		ExecutorService jobExecutor() {
			return Executors.newCachedThreadPool();
		}

		@Bean
		Jobs jobs(ExecutorService jobExecutor, ZkLockRegistry registry) {
			return new Jobs(jobExecutor, registry);
		}

	}

	public static class Jobs {

		private final CountDownLatch started = new CountDownLatch(1);

		private final ExecutorService executor;

		private final ZkLockRegistry registry;

		public Jobs(ExecutorService executor, ZkLockRegistry registry) {
			this.executor = executor;
			this.registry = registry;
		}

		// Through a method: the test holds the proxy, whose own fields are not the bean's
		public CountDownLatch started() {
			return this.started;
		}

		@DistributedLock(key = "'job:' + #name")
		public CompletableFuture<String> run(String name, CountDownLatch finish) {
			return CompletableFuture.supplyAsync(() -> {
				this.started.countDown();
				try {
					finish.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return "held";
			}, this.executor);
		}

		@DistributedLock(key = "'job:' + #name")
		public CompletionStage<String> minimal(String name) {
			// isDone() of this stage throws: the release must not depend on asking it
			return CompletableFuture.completedStage("done");
		}

		@DistributedLock(key = "'job:' + #name")
		public Object sneaky(String name) {
			return new CompletableFuture<String>();
		}

		@DistributedLock(key = "'job:' + #name")
		public CompletableFuture<String> fail(String name) {
			return CompletableFuture.supplyAsync(() -> {
				throw new IllegalStateException("job failed");
			}, this.executor);
		}

		@DistributedLock(key = "'job:' + #name")
		public CompletableFuture<String> throwBeforeStarting(String name) {
			throw new IllegalStateException("could not start");
		}

		@DistributedLock(key = "'job:' + #name")
		public CompletionStage<Boolean> heldWhileStarting(String name) {
			boolean held = this.registry.obtain("job:" + name).isHeldByCurrentThread();
			return CompletableFuture.completedFuture(held);
		}

		// inner runs under this method's hold of the same key, which it checks
		@Async
		@DistributedLock(key = "'job:' + #name")
		@UnlockedSelfCall("inner")
		public CompletableFuture<String> asyncOuter(String name) {
			return CompletableFuture.completedFuture(inner(name));
		}

		@DistributedLock(key = "'job:' + #name")
		public String inner(String name) {
			if (!this.registry.obtain("job:" + name).isHeldByCurrentThread()) {
				throw new CompletionException(new IllegalStateException("not held"));
			}
			return "inner held on " + name;
		}

	}

}
