package dev.zklock.autoconfigure.web;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.core.TestThreads;
import dev.zklock.core.TimingSensitive;
import dev.zklock.template.LockContext;
import dev.zklock.test.InProcessZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code DELETE /actuator/zklocks/{key}} on a real server: off unless enabled; when
 * enabled, a {@code @DistributedLock(revocable = true)} method holding the key is
 * interrupted and sees the request, while a method that did not opt in runs on untouched.
 */
@Timeout(90)
@TimingSensitive
class RevocationOverHttpTests {

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	@Test
	void revocationIsOffUnlessEnabled() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			assertThat(delete(context, "/actuator/zklocks/report").statusCode()).isEqualTo(405);
		}
	}

	@Test
	void aRevocableMethodIsInterruptedAndAnOptedOutOneIsNot() throws Exception {
		try (ConfigurableApplicationContext context = start("zklock.endpoint.revocation-enabled=true")) {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> revocable = CompletableFuture.supplyAsync(jobs::revocable, TestThreads.EXECUTOR);
			assertThat(jobs.revocableHolds().await(20, TimeUnit.SECONDS)).isTrue();
			HttpResponse<String> response = delete(context, "/actuator/zklocks/report");
			assertThat(response.statusCode()).isEqualTo(200);
			Map<String, Object> body = HttpProbe.json(response);
			assertThat(body).containsEntry("key", "report").containsEntry("path", "/locks/report");
			assertThat((List<?>) body.get("asked")).singleElement().asString().startsWith("/locks/report/");
			assertThat(revocable.get(20, TimeUnit.SECONDS)).isEqualTo("interrupted, revocation requested: true");

			CompletableFuture<String> optedOut = CompletableFuture.supplyAsync(jobs::optedOut, TestThreads.EXECUTOR);
			assertThat(jobs.optedOutHolds().await(20, TimeUnit.SECONDS)).isTrue();
			assertThat((List<?>) HttpProbe.json(delete(context, "/actuator/zklocks/audit")).get("asked")).hasSize(1);
			assertThat(optedOut.get(20, TimeUnit.SECONDS)).isEqualTo("ran to its end, interrupted: false");
			HttpResponse<String> nobody = delete(context, "/actuator/zklocks/audit");
			assertThat(nobody.statusCode()).as("nobody holds it now").isEqualTo(404);
			assertThat(HttpProbe.json(nobody)).containsEntry("key", "audit")
				.containsEntry("reason", "NOT_HELD")
				.hasEntrySatisfying("message",
						(message) -> assertThat(message).asString().contains("'audit'").contains("nobody holds it"));
		}
	}

	@Test
	void aSemaphoreKeyIsRefusedWithItsReasonAndNothingIsWritten() throws Exception {
		try (ConfigurableApplicationContext context = start("zklock.endpoint.revocation-enabled=true")) {
			CuratorFramework client = this.zk.newClient();
			InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/locks/pool", 2);
			Lease lease = semaphore.acquire(10, TimeUnit.SECONDS);
			String leasePath = "/locks/pool/leases/" + client.getChildren().forPath("/locks/pool/leases").get(0);
			Stat leases = client.checkExists().forPath("/locks/pool/leases");
			Stat held = client.checkExists().forPath(leasePath);
			HttpResponse<String> response = delete(context, "/actuator/zklocks/pool");
			assertThat(response.statusCode()).isEqualTo(409);
			assertThat(HttpProbe.json(response)).containsEntry("key", "pool")
				.containsEntry("path", "/locks/pool")
				.containsEntry("reason", "NOT_A_LOCK")
				.hasEntrySatisfying("message",
						(message) -> assertThat(message).asString()
							.contains("'pool'")
							.contains("not a revocable lock")
							.contains("semaphore"));
			assertThat(client.checkExists().forPath("/locks/pool/leases")).isEqualTo(leases);
			assertThat(client.checkExists().forPath(leasePath)).isEqualTo(held);
			semaphore.returnLease(lease);
		}
	}

	private HttpResponse<String> delete(ConfigurableApplicationContext context, String path) throws Exception {
		return new HttpProbe(context).send("DELETE", path);
	}

	private ConfigurableApplicationContext start(String... properties) {
		String[] all = new String[properties.length + 1];
		all[0] = "management.endpoints.web.exposure.include=zklocks";
		System.arraycopy(properties, 0, all, 1, properties.length);
		return new SpringApplicationBuilder(RevocationApplication.class).web(WebApplicationType.SERVLET)
			.properties(HttpProbe.applicationProperties(this.zk, all))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Jobs.class)
	static class RevocationApplication {

	}

	@Component
	public static class Jobs {

		final CountDownLatch revocableHolds = new CountDownLatch(1);

		final CountDownLatch optedOutHolds = new CountDownLatch(1);

		// Read through methods: the bean is a class proxy, whose own fields are unset
		public CountDownLatch revocableHolds() {
			return this.revocableHolds;
		}

		public CountDownLatch optedOutHolds() {
			return this.optedOutHolds;
		}

		@DistributedLock(key = "'report'", revocable = true)
		public String revocable() {
			this.revocableHolds.countDown();
			try {
				Thread.sleep(30_000);
				return "slept to its end";
			}
			catch (InterruptedException ex) {
				return "interrupted, revocation requested: " + LockContext.current().isRevocationRequested();
			}
		}

		@DistributedLock(key = "'audit'")
		public String optedOut() {
			this.optedOutHolds.countDown();
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
			boolean interrupted = false;
			while (System.nanoTime() < until) {
				interrupted |= Thread.currentThread().isInterrupted();
				try {
					Thread.sleep(50);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			return "ran to its end, interrupted: " + interrupted;
		}

	}

}
