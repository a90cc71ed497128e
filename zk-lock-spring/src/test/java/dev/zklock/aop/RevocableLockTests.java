package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.core.TestThreads;
import dev.zklock.template.LockContext;
import dev.zklock.template.LockMode;
import dev.zklock.test.InProcessZooKeeper;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @DistributedLock(revocable = true)} against Curator's own {@code Revoker}: a
 * revocable method is interrupted and sees the request; a method that did not opt in is
 * not interrupted; a request after the method returned reaches nothing.
 */
@Timeout(60)
class RevocableLockTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void curatorsRevokerInterruptsARevocableMethod() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk,
				(c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> jobs.revocable("report"),
					TestThreads.EXECUTOR);
			assertThat(jobs.holds().await(20, TimeUnit.SECONDS)).isTrue();
			revokeHolderOf("report");
			assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo("interrupted, requested: true");
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
		}
	}

	@Test
	void aReaderThatOptedInIsInterrupted() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk,
				(c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> run = CompletableFuture.supplyAsync(jobs::revocableReader, TestThreads.EXECUTOR);
			assertThat(jobs.holds().await(20, TimeUnit.SECONDS)).isTrue();
			revokeHolderOf("catalog");
			assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo("interrupted, requested: true");
		}
	}

	@Test
	void aMethodThatDidNotOptInIsNotInterrupted() throws Exception {
		try (AnnotationConfigApplicationContext context = LockedContext.start(this.zk,
				(c) -> c.registerBean(Jobs.class))) {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> run = CompletableFuture.supplyAsync(jobs::optedOut, TestThreads.EXECUTOR);
			assertThat(jobs.holds().await(20, TimeUnit.SECONDS)).isTrue();
			revokeHolderOf("audit");
			jobs.release().countDown();
			assertThat(run.get(20, TimeUnit.SECONDS)).isEqualTo("ran to its end, interrupted: false, requested: false");
		}
	}

	private void revokeHolderOf(String key) throws Exception {
		List<String> children = this.zk.children("/locks/" + key);
		assertThat(children).hasSize(1);
		Revoker.attemptRevoke(this.zk.newClient(), "/locks/" + key + "/" + children.get(0));
	}

	public static class Jobs {

		private final CountDownLatch holds = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		public CountDownLatch holds() {
			return this.holds;
		}

		public CountDownLatch release() {
			return this.release;
		}

		@DistributedLock(key = "#key", revocable = true)
		public String revocable(String key) {
			return sleepUntilInterrupted();
		}

		@DistributedLock(key = "'catalog'", mode = LockMode.READ, revocable = true)
		public String revocableReader() {
			return sleepUntilInterrupted();
		}

		@DistributedLock(key = "'audit'")
		public String optedOut() {
			this.holds.countDown();
			boolean interrupted = false;
			try {
				// Long enough for the request to arrive and be ignored
				this.release.await(20, TimeUnit.SECONDS);
				Thread.sleep(500);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			return "ran to its end, interrupted: " + interrupted + ", requested: "
					+ LockContext.current().isRevocationRequested();
		}

		private String sleepUntilInterrupted() {
			this.holds.countDown();
			try {
				Thread.sleep(30_000);
				return "slept to its end";
			}
			catch (InterruptedException ex) {
				return "interrupted, requested: " + LockContext.current().isRevocationRequested();
			}
		}

	}

}
