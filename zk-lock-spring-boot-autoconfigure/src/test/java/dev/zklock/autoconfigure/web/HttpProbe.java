package dev.zklock.autoconfigure.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import tools.jackson.databind.json.JsonMapper;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.TestThreads;
import dev.zklock.core.ZkLock;
import dev.zklock.core.registry.ZkLockRegistry;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the web tests share: real HTTP requests to a started application, the JSON of the
 * answers, and a lock held by a participant of its own ZooKeeper session.
 */
final class HttpProbe {

	/**
	 * Assert a plain server error: a 500 that is no problem response and says not to
	 * retry.
	 */
	static void assertPlainServerError(HttpResponse<String> response) {
		assertThat(response.statusCode()).isEqualTo(500);
		assertThat(response.headers().firstValue(HttpHeaders.CONTENT_TYPE).orElse("")).doesNotContain("problem");
		assertThat(response.headers().firstValue(HttpHeaders.RETRY_AFTER)).isEmpty();
	}

	/**
	 * The key the test controllers lock: not a word of any title or detail, so a body
	 * that names it is a body that leaks it.
	 */
	static final String KEY = "order-4711";

	static final String PATH = "/locks/" + KEY;

	private static final JsonMapper json = JsonMapper.builder().build();

	// Far above a request's time on a loaded machine, far below the tests' @Timeout
	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final int port;

	HttpProbe(ConfigurableApplicationContext context) {
		this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	HttpResponse<String> get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("Accept", "application/json")
			.timeout(REQUEST_TIMEOUT)
			.GET()
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Send a request without a body, such as a {@code DELETE}, accepting whatever the
	 * server answers.
	 */
	HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(REQUEST_TIMEOUT)
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SuppressWarnings("unchecked")
	static Map<String, Object> json(HttpResponse<String> response) {
		return json.readValue(response.body(), Map.class);
	}

	/**
	 * Hold {@link #KEY} through a registry on a Curator client of its own, as another JVM
	 * would, so that the application's attempt fails with {@code HELD_REMOTELY}.
	 */
	static ZkLock holdElsewhere(InProcessZooKeeper zk) throws Exception {
		ZkLockRegistry otherJvm = zk.newRegistry();
		ZkLock lock = otherJvm.obtain(KEY);
		lock.lock();
		return lock;
	}

	/**
	 * Call a path whose work holds {@code key} and counts {@code holding} down, then
	 * delete the held node from another ZooKeeper client, as another process (or an
	 * operator) would, and return the response.
	 */
	HttpResponse<String> getWhileNodeDeleted(String path, InProcessZooKeeper zk, String key, CountDownLatch holding)
			throws Exception {
		CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
			try {
				return get(path);
			}
			catch (IOException | InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.EXECUTOR);
		assertThat(holding.await(20, TimeUnit.SECONDS)).isTrue();
		List<String> children = zk.children("/locks/" + key);
		assertThat(children).hasSize(1);
		CuratorFramework other = zk.newClient();
		try {
			other.delete().forPath("/locks/" + key + "/" + children.get(0));
		}
		finally {
			other.close();
		}
		return call.get(30, TimeUnit.SECONDS);
	}

	/**
	 * Assert the problem of a lock lost while the work ran.
	 */
	static Map<String, Object> assertLockLostProblem(HttpResponse<String> response, String path) {
		assertThat(response.statusCode()).isEqualTo(500);
		assertThat(response.headers().firstValue(HttpHeaders.CONTENT_TYPE))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(response.headers().firstValue(HttpHeaders.RETRY_AFTER)).isEmpty();
		Map<String, Object> body = json(response);
		assertThat(body).containsEntry("type", "https://zk-lock.dev/problems/lock-lost")
			.containsEntry("title", "Lock lost")
			.containsEntry("status", 500)
			.containsEntry("instance", path);
		return body;
	}

	static String[] applicationProperties(InProcessZooKeeper zk, String... more) {
		return applicationProperties(zk.connectString(), more);
	}

	static String[] applicationProperties(String connectString, String... more) {
		String[] common = { "server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
				"zklock.connect-string=" + connectString, "zklock.session-timeout=4s", "zklock.connection-timeout=2s",
				"zklock.lock.default-wait=2s" };
		String[] all = new String[common.length + more.length];
		System.arraycopy(common, 0, all, 0, common.length);
		System.arraycopy(more, 0, all, common.length, more.length);
		return all;
	}

}
