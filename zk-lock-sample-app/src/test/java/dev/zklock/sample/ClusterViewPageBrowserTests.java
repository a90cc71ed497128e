package dev.zklock.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import dev.zklock.test.InProcessZooKeeper;
import dev.zklock.core.TimingSensitive;
import dev.zklock.core.ZkLock;
import dev.zklock.test.ServerSideExpiry;
import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.viewapp.LockViewApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The live page of the cluster view in a real browser, Debian's headless Chromium driven
 * through Selenium: two application instances on the starter and a plain Curator client
 * lock one key; the page shows the holder's row with its thread, the queue in order, the
 * new holder within a second of a release, the row highlighted once the holder's session
 * is expired, and keys that look like HTML as text. Saves screenshots under
 * {@code target/} for the docs. Without a browser it fails, saying how to install one.
 */
@Timeout(240)
@TimingSensitive
class ClusterViewPageBrowserTests {

	private static final String KEY = "stock:42";

	private static final String SCRIPT_KEY = "<script>window.zkPwned=1;";

	private static final String IMG_KEY = "<img src=x onerror=window.zkPwned=2>";

	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	final InProcessZooKeeper zk = InProcessZooKeeper.perClass();

	private final List<Holder> holders = new ArrayList<>();

	@Test
	void anOperatorSeesHoldersQueuesReleasesLostHoldsAndKeysAsText(@TempDir Path profile) throws Exception {
		Browser browser = Browser.find();
		try (ConfigurableApplicationContext a = start("a"); ConfigurableApplicationContext b = start("b")) {
			ZkLockRegistry first = a.getBean(ZkLockRegistry.class);
			ZkLockRegistry second = b.getBean(ZkLockRegistry.class);
			Holder checkout = hold(first, KEY, "checkout-a1");
			checkout.awaitHeld();
			Holder restock = hold(second, KEY, "restock-b1");
			awaitParticipants(first, KEY, 2);
			CuratorFramework curator = this.zk.newClient();
			InterProcessMutex plain = new InterProcessMutex(curator, first.lockPath(KEY));
			CountDownLatch plainHolds = new CountDownLatch(1);
			CountDownLatch plainRelease = new CountDownLatch(1);
			CompletableFuture<Boolean> plainWaits = CompletableFuture
				.supplyAsync(() -> holdPlain(plain, plainHolds, plainRelease));
			awaitParticipants(first, KEY, 3);
			hold(second, SCRIPT_KEY, "escape-b2").awaitHeld();
			hold(first, IMG_KEY, "escape-a2").awaitHeld();

			WebDriver driver = browser.open(profile);
			try {
				driver.get("http://localhost:" + port(b) + "/actuator/zkcluster/page");
				WebDriverWait wait = new WebDriverWait(driver, LONG_WAIT, Duration.ofMillis(50));
				wait.until((d) -> {
					Page page = Page.read(d);
					Row row = page.rows().get(KEY);
					return row != null && row.holder().contains("checkout-a1") && row.queue().size() == 2
							&& row.queue().get(0).contains("restock-b1") && page.instances() == 2
							&& page.rows().containsKey(SCRIPT_KEY) && page.rows().containsKey(IMG_KEY);
				});
				Page page = Page.read(driver);
				Row stock = page.rows().get(KEY);
				assertThat(stock.kind()).isEqualTo("EXCLUSIVE");
				assertThat(stock.lease()).contains("HELD");
				assertThat(stock.classes()).doesNotContain("doubt");
				assertThat(stock.queue().get(0)).as("b's node first, its waiting thread under it")
					.contains("restock-b1");
				assertThat(stock.queue().get(1)).as("then the plain Curator mutex, which reports no thread")
					.doesNotContain("thread")
					.contains("waited");

				// Keys are user data: shown as text, never run
				assertThat(page.rows().get(SCRIPT_KEY).key()).isEqualTo(SCRIPT_KEY);
				assertThat(page.rows().get(IMG_KEY).key()).isEqualTo(IMG_KEY);
				assertThat(driver.findElements(By.cssSelector("#keys img, #keys script"))).isEmpty();
				assertThat(((JavascriptExecutor) driver).executeScript("return typeof window.zkPwned"))
					.isEqualTo("undefined");
				screenshot(driver, "zkcluster-page.png");

				// A release shows within a second: b's waiting thread holds
				long released = System.nanoTime();
				checkout.release();
				new WebDriverWait(driver, Duration.ofSeconds(1), Duration.ofMillis(25))
					.until((d) -> Page.read(d).rows().get(KEY).holder().contains("restock-b1"));
				long shownMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
				assertThat(shownMs).as("the row follows the release within a second").isLessThanOrEqualTo(1000);
				restock.awaitHeld();

				// The holder's session expires on the server: its row is highlighted, its
				// hold
				// LOST, and the plain Curator mutex holds
				assertThat(ServerSideExpiry.expire(this.zk.connectString(), b.getBean(CuratorFramework.class), 4000,
						LONG_WAIT))
					.isNotZero();
				wait.until((d) -> {
					Row row = Page.read(d).rows().get(KEY);
					return row != null && row.classes().contains("doubt") && row.lease().contains("LOST");
				});
				assertThat(plainHolds.await(30, TimeUnit.SECONDS)).as("the plain Curator mutex holds").isTrue();
				assertThat(Page.read(driver).rows().get(KEY).holder()).contains("restock-b1").contains("LOST");
				screenshot(driver, "zkcluster-page-lost.png");

				// The revoke action asks for confirmation, and only then asks the holder
				wait.until((d) -> {
					try {
						revokeButton(d, IMG_KEY).click();
						return true;
					}
					catch (StaleElementReferenceException ex) {
						return false;
					}
				});
				wait.until(ExpectedConditions.alertIsPresent()).accept();
				String notice = wait.until((d) -> {
					String text = d.findElement(By.id("notice")).getText();
					return text.contains("Revocation of") ? text : null;
				});
				assertThat(notice).contains(IMG_KEY).contains(": 200");
			}
			finally {
				driver.quit();
				plainRelease.countDown();
				this.holders.forEach(Holder::release);
				plainWaits.get(30, TimeUnit.SECONDS);
			}
		}
	}

	private ConfigurableApplicationContext start(String name) {
		return new SpringApplicationBuilder(LockViewApplication.class)
			.properties("spring.config.name=zkcluster-view-test", "spring.application.name=view-" + name,
					"server.port=0", "zklock.connect-string=" + this.zk.connectString(), "zklock.session-timeout=4s",
					"zklock.view.enabled=true", "zklock.view.report-interval=100ms",
					"zklock.endpoint.revocation-enabled=true", "spring.datasource.url=jdbc:h2:mem:view-" + name)
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private Holder hold(ZkLockRegistry registry, String key, String thread) {
		Holder holder = new Holder(registry.obtain(key), thread);
		this.holders.add(holder);
		holder.start();
		return holder;
	}

	private static void awaitParticipants(ZkLockRegistry registry, String key, int count) {
		InProcessZooKeeper.eventually().until(() -> registry.participants(key).size() == count);
	}

	/**
	 * Take a plain Curator mutex, keep it until told, and release it on the same thread.
	 */
	private static boolean holdPlain(InterProcessMutex mutex, CountDownLatch holds, CountDownLatch release) {
		try {
			if (!mutex.acquire(120, TimeUnit.SECONDS)) {
				return false;
			}
			try {
				holds.countDown();
				return release.await(120, TimeUnit.SECONDS);
			}
			finally {
				mutex.release();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The revoke button of a key's row, found by its data attribute (no selector
	 * escaping).
	 */
	private static WebElement revokeButton(WebDriver driver, String key) {
		for (WebElement row : driver.findElements(By.cssSelector("#keys tbody tr.key-row"))) {
			if (key.equals(row.getAttribute("data-key"))) {
				return row.findElement(By.cssSelector("button.revoke"));
			}
		}
		throw new StaleElementReferenceException("no row for " + key + " yet");
	}

	/**
	 * What the page shows at one moment, read in one script: the page redraws its tables
	 * twice a second, so elements found one by one may be gone before they are read.
	 */
	private record Page(Map<String, Row> rows, long instances) {

		private static final String READ = """
				var rows = {};
				document.querySelectorAll('#keys tbody tr.key-row').forEach(function (r) {
				  rows[r.getAttribute('data-key')] = {
				    classes: r.className,
				    key: r.querySelector('td.key').textContent,
				    kind: r.querySelector('td.kind').textContent,
				    holder: r.querySelector('td.holder').innerText,
				    lease: r.querySelector('td.lease').innerText,
				    queue: Array.from(r.querySelectorAll('ol.queue > li')).map(function (li) { return li.innerText; })
				  };
				});
				return { rows: rows, instances: document.querySelectorAll('#instances tbody tr').length };
				""";

		@SuppressWarnings("unchecked")
		static Page read(WebDriver driver) {
			Map<String, Object> read = (Map<String, Object>) ((JavascriptExecutor) driver).executeScript(READ);
			Map<String, Row> rows = new LinkedHashMap<>();
			((Map<String, Map<String, Object>>) read.get("rows")).forEach((key, row) -> rows.put(key,
					new Row((String) row.get("classes"), (String) row.get("key"), (String) row.get("kind"),
							(String) row.get("holder"), (String) row.get("lease"), (List<String>) row.get("queue"))));
			return new Page(rows, ((Number) read.get("instances")).longValue());
		}

	}

	/** One key's row as shown. */
	private record Row(String classes, String key, String kind, String holder, String lease, List<String> queue) {
	}

	private static void screenshot(WebDriver driver, String name) throws Exception {
		File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
		Path target = Path.of("target", name);
		Files.createDirectories(target.getParent());
		Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
	}

	/**
	 * A thread that takes a key's lock and keeps it until released.
	 */
	private static final class Holder extends Thread {

		private final ZkLock lock;

		private final CountDownLatch held = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		Holder(ZkLock lock, String name) {
			super(name);
			this.lock = lock;
			setDaemon(true);
		}

		@Override
		public void run() {
			this.lock.lock();
			try {
				this.held.countDown();
				this.release.await(120, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				try {
					this.lock.unlock();
				}
				catch (RuntimeException lost) {
					// A hold lost with its session says so at release
				}
			}
		}

		void awaitHeld() throws InterruptedException {
			assertThat(this.held.await(30, TimeUnit.SECONDS)).as(getName() + " holds").isTrue();
		}

		void release() {
			this.release.countDown();
		}

	}

	/**
	 * Debian's Chromium and its driver, or a failure saying how to install them: a
	 * browser test that skips in silence proves nothing.
	 */
	private record Browser(Path chromium, Path driver) {

		static Browser find() {
			Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM_BIN", "/usr/bin/chromium"));
			Path driver = Path.of(System.getenv().getOrDefault("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"));
			if (!Files.isExecutable(chromium) || !Files.isExecutable(driver)) {
				fail("The live page is tested in headless Chromium, but "
						+ (Files.isExecutable(chromium) ? driver : chromium)
						+ " is not installed. Install Debian's packages: "
						+ "sudo apt-get install -y chromium chromium-driver (.ci/run does so when they are absent), "
						+ "or set CHROMIUM_BIN and CHROMEDRIVER_BIN");
			}
			return new Browser(chromium, driver);
		}

		WebDriver open(Path profile) {
			ChromeOptions options = new ChromeOptions();
			options.setBinary(this.chromium.toFile());
			// The machine's network is closed: no background connections, no first-run
			// work
			options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
					"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
					"--disable-sync", "--window-size=1400,900", "--user-data-dir=" + profile.toAbsolutePath());
			ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(this.driver.toFile())
				.usingAnyFreePort()
				.build();
			return new ChromeDriver(service, options);
		}

	}

}
