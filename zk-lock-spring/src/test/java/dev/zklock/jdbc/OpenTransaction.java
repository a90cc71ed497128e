package dev.zklock.jdbc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A transaction on a thread of its own that stays open after its work, until the test
 * commits or rolls it back: how the tests hold a row lock while another transaction runs
 * into it.
 */
final class OpenTransaction {

	private static final long TIMEOUT_SECONDS = 30;

	private final CompletableFuture<Void> worked = new CompletableFuture<>();

	private final CompletableFuture<Boolean> decision = new CompletableFuture<>();

	private final CompletableFuture<Void> ended = new CompletableFuture<>();

	private OpenTransaction() {
	}

	/**
	 * Start a transaction that runs the work and then waits for the test's decision.
	 */
	static OpenTransaction start(PlatformTransactionManager transactionManager, Runnable work) {
		OpenTransaction transaction = new OpenTransaction();
		Thread thread = new Thread(() -> {
			try {
				new TransactionTemplate(transactionManager).executeWithoutResult((status) -> {
					try {
						work.run();
					}
					catch (RuntimeException ex) {
						transaction.worked.completeExceptionally(ex);
						throw ex;
					}
					transaction.worked.complete(null);
					boolean commit;
					try {
						commit = transaction.decision.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
					}
					catch (InterruptedException | ExecutionException | TimeoutException ex) {
						throw new IllegalStateException("The test did not decide in time", ex);
					}
					if (!commit) {
						status.setRollbackOnly();
					}
				});
				transaction.ended.complete(null);
			}
			catch (Throwable ex) {
				transaction.worked.completeExceptionally(ex);
				transaction.ended.completeExceptionally(ex);
			}
		}, "open-transaction");
		thread.setDaemon(true);
		thread.start();
		return transaction;
	}

	/**
	 * Whether the work has ended, normally or not: a work blocked on a row lock has not.
	 */
	boolean workEnded() {
		return this.worked.isDone();
	}

	/**
	 * Wait for the work to end.
	 * @throws ExecutionException with what the work threw
	 */
	void awaitWork() throws Exception {
		this.worked.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
	}

	/**
	 * Commit once the work has ended, and wait for the commit.
	 */
	void commit() throws Exception {
		this.decision.complete(true);
		this.ended.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
	}

	/**
	 * Roll back once the work has ended, and wait for it.
	 */
	void rollback() throws Exception {
		this.decision.complete(false);
		this.ended.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
	}

}
