package dev.zklock.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LostLockPolicy;
import dev.zklock.core.leader.LeaderGroup;
import dev.zklock.core.leader.OnSuspended;
import dev.zklock.core.view.ViewOptions;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for zk-lock. Once bound, they check themselves: a value that
 * binding accepts but that cannot work (a zero session timeout, a negative wait, a root
 * path ZooKeeper refuses) fails startup naming the property, before any bean uses it.
 *
 * @author zk-lock
 */
@ConfigurationProperties("zklock")
public class ZkLockProperties implements InitializingBean {

	/**
	 * Whether to enable zk-lock's auto-configuration.
	 */
	private boolean enabled = true;

	/**
	 * ZooKeeper connect string: comma-separated host:port pairs, optionally followed by a
	 * chroot path.
	 */
	private String connectString = "localhost:2181";

	/**
	 * Curator namespace: a path prefix, without a leading or trailing slash, applied to
	 * every node; not zookeeper (ZooKeeper's reserved tree) or inside it.
	 */
	private @Nullable String namespace;

	/**
	 * Session timeout requested from ZooKeeper. A holder whose JVM dies keeps its locks
	 * this long; the server bounds it to between 2 and 20 ticks.
	 */
	private Duration sessionTimeout = Duration.ofSeconds(30);

	/**
	 * Connection timeout of the Curator client.
	 */
	private Duration connectionTimeout = Duration.ofSeconds(15);

	/**
	 * How long startup waits for the first connection before it logs a warning and goes
	 * on (or fails, with fail-fast).
	 */
	private Duration initialConnectWait = Duration.ofSeconds(5);

	/**
	 * Whether startup fails when ZooKeeper cannot be reached within the initial connect
	 * wait.
	 */
	private boolean failFast;

	/**
	 * Whether startup fails when the environment has a zklock.* property that no zk-lock
	 * module on the classpath declares, such as a misspelled name. When false, such
	 * properties are logged in one warning line instead.
	 */
	private boolean failOnUnknownProperties = true;

	/**
	 * Retry policy of the Curator client.
	 */
	private final Retry retry = new Retry();

	/**
	 * Digest authentication.
	 */
	private final Auth auth = new Auth();

	/**
	 * Lock engine options.
	 */
	private final Lock lock = new Lock();

	/**
	 * {@code @DistributedLock} support.
	 */
	private final Annotation annotation = new Annotation();

	/**
	 * In-process ZooKeeper server, for development and tests.
	 */
	private final Embedded embedded = new Embedded();

	/**
	 * TLS to ZooKeeper.
	 */
	private final Tls tls = new Tls();

	/**
	 * What HTTP clients see when a lock is not acquired.
	 */
	private final Web web = new Web();

	/**
	 * Leader election among the application's instances.
	 */
	private final Leadership leadership = new Leadership();

	/**
	 * The cluster view: every key's holder and queue across instances, as the zkcluster
	 * endpoint and its live page show them.
	 */
	private final View view = new View();

	/**
	 * Check the bound values, once, whichever bean needs them first.
	 * @throws RuntimeException an {@code InvalidConfigurationPropertyValueException}
	 * naming the first invalid property
	 */
	@Override
	public void afterPropertiesSet() {
		ZkLockPropertiesValidator.validate(this);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getConnectString() {
		return this.connectString;
	}

	public void setConnectString(String connectString) {
		this.connectString = connectString;
	}

	public @Nullable String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(@Nullable String namespace) {
		this.namespace = namespace;
	}

	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	public void setSessionTimeout(Duration sessionTimeout) {
		this.sessionTimeout = sessionTimeout;
	}

	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	public void setConnectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = connectionTimeout;
	}

	public Duration getInitialConnectWait() {
		return this.initialConnectWait;
	}

	public void setInitialConnectWait(Duration initialConnectWait) {
		this.initialConnectWait = initialConnectWait;
	}

	public boolean isFailFast() {
		return this.failFast;
	}

	public void setFailFast(boolean failFast) {
		this.failFast = failFast;
	}

	public boolean isFailOnUnknownProperties() {
		return this.failOnUnknownProperties;
	}

	public void setFailOnUnknownProperties(boolean failOnUnknownProperties) {
		this.failOnUnknownProperties = failOnUnknownProperties;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Auth getAuth() {
		return this.auth;
	}

	public Lock getLock() {
		return this.lock;
	}

	public Annotation getAnnotation() {
		return this.annotation;
	}

	public Embedded getEmbedded() {
		return this.embedded;
	}

	public Tls getTls() {
		return this.tls;
	}

	public Web getWeb() {
		return this.web;
	}

	public Leadership getLeadership() {
		return this.leadership;
	}

	public View getView() {
		return this.view;
	}

	/**
	 * Retry policy of the Curator client: exponential back-off between attempts of one
	 * operation.
	 */
	public static class Retry {

		/**
		 * Initial sleep between retries.
		 */
		private Duration baseSleep = Duration.ofMillis(100);

		/**
		 * Maximum number of retries of one operation.
		 */
		private int maxRetries = 3;

		/**
		 * Maximum sleep between retries.
		 */
		private Duration maxSleep = Duration.ofSeconds(5);

		public Duration getBaseSleep() {
			return this.baseSleep;
		}

		public void setBaseSleep(Duration baseSleep) {
			this.baseSleep = baseSleep;
		}

		public int getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
		}

		public Duration getMaxSleep() {
			return this.maxSleep;
		}

		public void setMaxSleep(Duration maxSleep) {
			this.maxSleep = maxSleep;
		}

	}

	/**
	 * Digest authentication. When a username is set, the client authenticates and lock
	 * nodes are created with a creator-only ACL, so clients without the credentials
	 * cannot delete them.
	 */
	public static class Auth {

		/**
		 * Digest username.
		 */
		private @Nullable String username;

		/**
		 * Digest password.
		 */
		private @Nullable String password;

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		boolean isEnabled() {
			return this.username != null && !this.username.isEmpty();
		}

	}

	/**
	 * Lock engine options.
	 */
	public static class Lock {

		/**
		 * ZooKeeper path under which each key's lock lives, as root-path/key.
		 */
		private String rootPath = "/locks";

		/**
		 * Wait used when none is given (neither waitAtMost nor waitMs on the annotation).
		 */
		private Duration defaultWait = Duration.ofSeconds(10);

		/**
		 * How many times a held lock may pass to another thread of this JVM, without a
		 * ZooKeeper round trip, while another JVM waits for it, counted from when this
		 * JVM hears of that JVM (a child event or a child list). 0 disables local
		 * hand-off.
		 */
		private int maxLocalHandoffs = 8;

		/**
		 * What releasing a lock lost while held (its session expired) does: throw a
		 * LockLostException, or log a warning.
		 */
		private LostLockPolicy lostLockPolicy = LostLockPolicy.THROW;

		/**
		 * How long a release waits for ZooKeeper to confirm the delete of the lock node
		 * before leaving it to the background. 0 returns as soon as the delete is sent,
		 * which mutual exclusion does not need more than: this session's next request is
		 * applied after it, and other participants wait until it is applied.
		 */
		private Duration releaseTimeout = Duration.ZERO;

		/**
		 * How long an exclusive lock's node is kept after the last holder in this
		 * application released it, while no other participant queues for the key, so that
		 * the next lock of the key here costs no ZooKeeper request. Another participant
		 * that queues makes it go at once. 0 (off) deletes it on release.
		 */
		private Duration linger = Duration.ZERO;

		/**
		 * The most distinct keys one call may lock at once (a key expression that gives a
		 * collection or an array, or the template's keys). The keys are taken one by one,
		 * a ZooKeeper round trip each, under the call's one wait; more are refused before
		 * any request.
		 */
		private int maxKeysPerCall = 64;

		public int getMaxKeysPerCall() {
			return this.maxKeysPerCall;
		}

		public void setMaxKeysPerCall(int maxKeysPerCall) {
			this.maxKeysPerCall = maxKeysPerCall;
		}

		public String getRootPath() {
			return this.rootPath;
		}

		public void setRootPath(String rootPath) {
			this.rootPath = rootPath;
		}

		public Duration getDefaultWait() {
			return this.defaultWait;
		}

		public void setDefaultWait(Duration defaultWait) {
			this.defaultWait = defaultWait;
		}

		public int getMaxLocalHandoffs() {
			return this.maxLocalHandoffs;
		}

		public void setMaxLocalHandoffs(int maxLocalHandoffs) {
			this.maxLocalHandoffs = maxLocalHandoffs;
		}

		public LostLockPolicy getLostLockPolicy() {
			return this.lostLockPolicy;
		}

		public void setLostLockPolicy(LostLockPolicy lostLockPolicy) {
			this.lostLockPolicy = lostLockPolicy;
		}

		public Duration getReleaseTimeout() {
			return this.releaseTimeout;
		}

		public void setReleaseTimeout(Duration releaseTimeout) {
			this.releaseTimeout = releaseTimeout;
		}

		public Duration getLinger() {
			return this.linger;
		}

		public void setLinger(Duration linger) {
			this.linger = linger;
		}

	}

	/**
	 * {@code @DistributedLock} support.
	 */
	public static class Annotation {

		/**
		 * Order of the @DistributedLock advisor. The default, Ordered.LOWEST_PRECEDENCE -
		 * 1, runs just before @Transactional's advisor (which has the lowest precedence),
		 * so the lock spans the transaction.
		 */
		private int order = 2147483646;

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

	/**
	 * In-process ZooKeeper server, for development and tests only. The server is in its
	 * own module, dev.zklock:zk-lock-embedded-zookeeper, which the starter does not
	 * bring; these properties are bound here so that enabling it without the module fails
	 * startup.
	 */
	public static class Embedded {

		/**
		 * Whether to start an in-process ZooKeeper server and connect to it, ignoring
		 * connect-string. Needs dev.zklock:zk-lock-embedded-zookeeper on the classpath;
		 * without it, startup fails.
		 */
		private boolean enabled;

		/**
		 * Client port of the embedded server; 0 picks a free port.
		 */
		private int port = 2181;

		/**
		 * Data directory of the embedded server, kept on shutdown. When not set, a
		 * temporary directory, deleted on shutdown and when the server fails to start.
		 */
		private @Nullable Path dataDir;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getPort() {
			return this.port;
		}

		public void setPort(int port) {
			this.port = port;
		}

		public @Nullable Path getDataDir() {
			return this.dataDir;
		}

		public void setDataDir(@Nullable Path dataDir) {
			this.dataDir = dataDir;
		}

	}

	/**
	 * TLS to ZooKeeper's secure client port, through ZooKeeper's Netty client. Passwords
	 * are passed to the client only, never logged or shown.
	 */
	public static class Tls {

		/**
		 * Whether to connect over TLS.
		 */
		private boolean enabled;

		/**
		 * Location of the client's key store (a file path), for servers that require
		 * client certificates.
		 */
		private @Nullable String keyStore;

		/**
		 * Password of the key store.
		 */
		private @Nullable String keyStorePassword;

		/**
		 * Type of the key store (PKCS12, JKS, PEM); inferred from the file extension when
		 * not set.
		 */
		private @Nullable String keyStoreType;

		/**
		 * Location of the trust store (a file path) holding the certificates that the
		 * server's certificate is checked against.
		 */
		private @Nullable String trustStore;

		/**
		 * Password of the trust store.
		 */
		private @Nullable String trustStorePassword;

		/**
		 * Type of the trust store (PKCS12, JKS, PEM); inferred from the file extension
		 * when not set.
		 */
		private @Nullable String trustStoreType;

		/**
		 * Whether to check that the server's certificate matches its host name.
		 */
		private boolean hostnameVerification = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getKeyStore() {
			return this.keyStore;
		}

		public void setKeyStore(@Nullable String keyStore) {
			this.keyStore = keyStore;
		}

		public @Nullable String getKeyStorePassword() {
			return this.keyStorePassword;
		}

		public void setKeyStorePassword(@Nullable String keyStorePassword) {
			this.keyStorePassword = keyStorePassword;
		}

		public @Nullable String getKeyStoreType() {
			return this.keyStoreType;
		}

		public void setKeyStoreType(@Nullable String keyStoreType) {
			this.keyStoreType = keyStoreType;
		}

		public @Nullable String getTrustStore() {
			return this.trustStore;
		}

		public void setTrustStore(@Nullable String trustStore) {
			this.trustStore = trustStore;
		}

		public @Nullable String getTrustStorePassword() {
			return this.trustStorePassword;
		}

		public void setTrustStorePassword(@Nullable String trustStorePassword) {
			this.trustStorePassword = trustStorePassword;
		}

		public @Nullable String getTrustStoreType() {
			return this.trustStoreType;
		}

		public void setTrustStoreType(@Nullable String trustStoreType) {
			this.trustStoreType = trustStoreType;
		}

		public boolean isHostnameVerification() {
			return this.hostnameVerification;
		}

		public void setHostnameVerification(boolean hostnameVerification) {
			this.hostnameVerification = hostnameVerification;
		}

	}

	/**
	 * What HTTP clients see when a lock is not acquired, with Spring MVC or WebFlux.
	 */
	public static class Web {

		/**
		 * RFC 9457 problem responses for a LockAcquisitionException thrown out of a
		 * controller.
		 */
		private final ProblemDetails problemDetails = new ProblemDetails();

		public ProblemDetails getProblemDetails() {
			return this.problemDetails;
		}

	}

	/**
	 * RFC 9457 problem responses ({@code application/problem+json}) for a
	 * {@code LockAcquisitionException} that the application does not handle itself: 409
	 * for a busy lock, 503 when ZooKeeper cannot be used, 500 when it refused the
	 * operation.
	 */
	public static class ProblemDetails {

		/**
		 * Whether to turn a LockAcquisitionException that no @ExceptionHandler of the
		 * application handles into a problem response.
		 */
		private boolean enabled = true;

		/**
		 * Whether the problem response names the lock: its key, the reason, the time
		 * waited, and as detail its ZooKeeper path and, for a busy lock, the holder (its
		 * node and owner pid@host, or the name of the holding thread of this JVM). Never
		 * the connect string. Off by default, as these are internals a client should not
		 * see.
		 */
		private boolean exposeLockDetails = false;

		/**
		 * Retry-After of 409 and 503 responses, sent in whole seconds rounded up. Zero
		 * leaves the header out.
		 */
		private Duration retryAfter = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isExposeLockDetails() {
			return this.exposeLockDetails;
		}

		public void setExposeLockDetails(boolean exposeLockDetails) {
			this.exposeLockDetails = exposeLockDetails;
		}

		public Duration getRetryAfter() {
			return this.retryAfter;
		}

		public void setRetryAfter(Duration retryAfter) {
			this.retryAfter = retryAfter;
		}

	}

	/**
	 * Leader election among the application's instances: one instance of each group leads
	 * at a time, and hands over when it stops.
	 */
	public static class Leadership {

		/**
		 * Whether to provide a ZkLeadership bean, which joins the application's leader
		 * groups when it starts.
		 */
		private boolean enabled = true;

		/**
		 * ZooKeeper path under which each leader group lives, as root-path/group. Apart
		 * from zklock.lock.root-path: neither equal to it nor one inside the other, so
		 * that a group and a lock key of the same name never meet.
		 */
		private String rootPath = LeaderGroup.DEFAULT_ROOT_PATH;

		/**
		 * What a leader does while its connection to ZooKeeper is suspended: lead on
		 * until the session is known lost (LEAD_ON), or step down at once (STEP_DOWN).
		 */
		private OnSuspended onSuspended = OnSuspended.LEAD_ON;

		/**
		 * How long a hand-off waits for running leader work to finish, and leader-only
		 * components to stop, before it interrupts the work and gives leadership up.
		 */
		private Duration handOffTimeout = Duration.ofSeconds(30);

		/**
		 * Names of leader groups to join at startup, in addition to those that the
		 * application's beans declare.
		 */
		private List<String> groups = new ArrayList<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getRootPath() {
			return this.rootPath;
		}

		public void setRootPath(String rootPath) {
			this.rootPath = rootPath;
		}

		public OnSuspended getOnSuspended() {
			return this.onSuspended;
		}

		public void setOnSuspended(OnSuspended onSuspended) {
			this.onSuspended = onSuspended;
		}

		public Duration getHandOffTimeout() {
			return this.handOffTimeout;
		}

		public void setHandOffTimeout(Duration handOffTimeout) {
			this.handOffTimeout = handOffTimeout;
		}

		public List<String> getGroups() {
			return this.groups;
		}

		public void setGroups(List<String> groups) {
			this.groups = groups;
		}

	}

	/**
	 * The cluster view: the zkcluster endpoint, its live page, and this instance's report
	 * of its holds.
	 */
	public static class View {

		/**
		 * Whether to offer the zkcluster endpoint (GET /actuator/zkcluster, every key's
		 * holder and queue across all instances, and the live page at
		 * /actuator/zkcluster/page), exposed over HTTP by this property alone, and to
		 * publish this instance's report of its holds for other instances' views. Off by
		 * default: the view shows key names, host names and thread names; secure it like
		 * any endpoint.
		 */
		private boolean enabled;

		/**
		 * ZooKeeper path under which each instance publishes its report, one ephemeral
		 * node per session. Apart from zklock.lock.root-path.
		 */
		private String instancesPath = ViewOptions.DEFAULT_INSTANCES_PATH;

		/**
		 * Most keys (children of the lock root path, and of the leadership root path) the
		 * view lists; with more, it answers with an error and lists nothing.
		 */
		private int maxKeys = 10_000;

		/**
		 * Least time between two writes of this instance's report.
		 */
		private Duration reportInterval = Duration.ofMillis(250);

		/**
		 * Most time between two writes of this instance's report; an instance whose
		 * report is three heartbeats older than the newest is shown as silent.
		 */
		private Duration heartbeat = Duration.ofSeconds(2);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getInstancesPath() {
			return this.instancesPath;
		}

		public void setInstancesPath(String instancesPath) {
			this.instancesPath = instancesPath;
		}

		public int getMaxKeys() {
			return this.maxKeys;
		}

		public void setMaxKeys(int maxKeys) {
			this.maxKeys = maxKeys;
		}

		public Duration getReportInterval() {
			return this.reportInterval;
		}

		public void setReportInterval(Duration reportInterval) {
			this.reportInterval = reportInterval;
		}

		public Duration getHeartbeat() {
			return this.heartbeat;
		}

		public void setHeartbeat(Duration heartbeat) {
			this.heartbeat = heartbeat;
		}

	}

}
