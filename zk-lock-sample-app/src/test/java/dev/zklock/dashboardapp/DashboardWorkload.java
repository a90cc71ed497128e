package dev.zklock.dashboardapp;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnLocked;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the sample shop lacks for the dashboard's every outcome, added to it by the
 * dashboard tests (a package of its own, so that the shop's component scan never finds
 * it): a job that skips when busy ({@code onLocked = SKIP}), and a hold that watches its
 * node ({@code revocable = true}), so that its node's delete by another client is a lost
 * lock.
 */
@Configuration(proxyBeanMethods = false)
public class DashboardWorkload {

	@Bean
	Calls dashboardCalls() {
		return new Calls();
	}

	/**
	 * The locked calls.
	 */
	public static class Calls {

		private final AtomicInteger reports = new AtomicInteger();

		/**
		 * A job of one instance at a time: skipped while another holds {@code report}, or
		 * while ZooKeeper cannot be reached.
		 */
		@DistributedLock(key = "'report'", name = "report", waitMs = 0, onLocked = OnLocked.SKIP)
		public void report() {
			this.reports.incrementAndGet();
		}

		/**
		 * How many times {@link #report()} ran.
		 * @return the runs
		 */
		public int reports() {
			return this.reports.get();
		}

		/**
		 * Hold {@code lost-hold} until told to return.
		 * @param held counted down once the lock is held
		 * @param release awaited before returning
		 * @param atMost how long to wait for {@code release}
		 * @throws InterruptedException if interrupted while held
		 */
		@DistributedLock(key = "'lost-hold'", name = "lost-hold", revocable = true)
		public void hold(CountDownLatch held, CountDownLatch release, Duration atMost) throws InterruptedException {
			held.countDown();
			release.await(atMost.toMillis(), TimeUnit.MILLISECONDS);
		}

	}

}
