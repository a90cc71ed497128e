package dev.zklock.autoconfigure.logging;

import java.util.Map;

import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Keeps the ZooKeeper client's and Curator's per-attempt lines out of the log while
 * ZooKeeper cannot be reached: zk-lock logs one line of its own per connection state
 * change instead ({@code dev.zklock.core.SessionTracker}). Without these levels, an
 * outage shows a stack trace about every second, and a host that does not resolve two of
 * them. Defaults only: any {@code logging.level.*} of the application for the same
 * loggers wins.
 * <ul>
 * <li>{@code org.apache.zookeeper.ClientCnxn}: {@code error}. Its connection chatter is
 * INFO (each attempt) and WARN with a stack trace (each failed attempt); its ERRORs, a
 * SASL authentication failure among them, still show.</li>
 * <li>{@code org.apache.zookeeper.client.StaticHostProvider}: {@code off}. Its only lines
 * are an ERROR with a stack trace for each attempt on a host that does not resolve;
 * zk-lock names such hosts itself when it starts.</li>
 * <li>{@code org.apache.curator.framework.state.ConnectionStateManager}: {@code warn}.
 * Its INFO {@code State change} lines are what zk-lock's own lines say, with more.</li>
 * <li>{@code org.apache.curator.framework.imps.CuratorFrameworkImpl}: {@code off}. It
 * logs each background operation that gave up on a lost connection at ERROR with a stack
 * trace, a symptom of what zk-lock's line already reports. Its other errors are not lost:
 * they reach Curator's unhandled-error listeners, and zk-lock's
 * ({@link CuratorUnhandledErrorLogger}) logs them.</li>
 * </ul>
 * And the start-up chatter of a healthy client, all of it INFO, about 25 lines per start:
 * <ul>
 * <li>{@code org.apache.zookeeper.ZooKeeper}: {@code warn}. Its
 * {@code Client environment:} dump (about 20 lines: class path, JVM, user, memory),
 * {@code Initiating client
 * connection} and {@code Session ... closed}.</li>
 * <li>{@code org.apache.zookeeper.common.X509Util} and
 * {@code org.apache.zookeeper.ClientCnxnSocket}: {@code warn}. The TLS defaults and
 * {@code jute.maxbuffer}, at every start, TLS on or not.</li>
 * <li>{@code org.apache.curator.framework.imps.EnsembleTracker}: {@code warn}.
 * {@code New config event received} at each connect and reconnect.</li>
 * </ul>
 * And {@code org.apache.zookeeper.ZooKeeperTestable}: {@code warn}. Its only line,
 * {@code injectSessionExpiration() called} at INFO, comes when Curator expires a session
 * itself (its session timeout passed while {@code SUSPENDED}), which Curator's WARN just
 * before it and zk-lock's own line already report. Nothing is contributed when
 * {@code zklock.enabled=false}.
 *
 * @author zk-lock
 */
final class ZkLockLogLevelsEnvironmentPostProcessor extends DefaultLogLevelsEnvironmentPostProcessor {

	/**
	 * Name of the property source holding the default levels.
	 */
	static final String PROPERTY_SOURCE_NAME = "zkLockClientLogLevels";

	static final Map<String, Object> LEVELS = Map.of("logging.level.org.apache.zookeeper.ClientCnxn", "error",
			"logging.level.org.apache.zookeeper.client.StaticHostProvider", "off",
			"logging.level.org.apache.curator.framework.state.ConnectionStateManager", "warn",
			"logging.level.org.apache.curator.framework.imps.CuratorFrameworkImpl", "off",
			"logging.level.org.apache.zookeeper.ZooKeeper", "warn",
			"logging.level.org.apache.zookeeper.common.X509Util", "warn",
			"logging.level.org.apache.zookeeper.ClientCnxnSocket", "warn",
			"logging.level.org.apache.curator.framework.imps.EnsembleTracker", "warn",
			"logging.level.org.apache.zookeeper.ZooKeeperTestable", "warn");

	ZkLockLogLevelsEnvironmentPostProcessor() {
		super(PROPERTY_SOURCE_NAME);
	}

	@Override
	protected Map<String, Object> levels(ConfigurableEnvironment environment) {
		return environment.getProperty("zklock.enabled", Boolean.class, true) ? LEVELS : Map.of();
	}

}
