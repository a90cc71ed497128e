package dev.zklock.embedded;

import java.util.Map;

import dev.zklock.autoconfigure.logging.DefaultLogLevelsEnvironmentPostProcessor;

import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Quiets ZooKeeper while {@code zklock.embedded.enabled=true}. An in-process server logs
 * about 130 lines at startup and shutdown (its configuration, a banner, its environment,
 * a WARN that {@code maxCnxns} is not configured), and its client another 30, none of
 * which a developer running tests needs. This adds default {@code logging.level.*}
 * values, as a property source of the lowest precedence, so that any level the
 * application sets for the same loggers wins:
 * <ul>
 * <li>{@code org.apache.zookeeper}: {@code warn}, for server and client alike;</li>
 * <li>{@code org.apache.zookeeper.server.ServerCnxnFactory}: {@code error}, whose WARN
 * about {@code maxCnxns} (a connection limit for production servers) comes at every
 * start;</li>
 * <li>{@code org.apache.curator.framework.imps}: {@code warn}, the client's own start and
 * configuration lines. Curator's connection state changes stay at {@code info}.</li>
 * </ul>
 * ERROR always gets through. Nothing changes when the embedded server is off: an
 * application that talks to a real ensemble keeps ZooKeeper's log as it was, but for the
 * client levels that zk-lock's auto-configuration contributes in any case.
 *
 * @author zk-lock
 */
final class EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor extends DefaultLogLevelsEnvironmentPostProcessor {

	/**
	 * Name of the property source holding the default levels.
	 */
	static final String PROPERTY_SOURCE_NAME = "zkLockEmbeddedZooKeeperLogLevels";

	private static final Map<String, Object> LEVELS = Map.of("logging.level.org.apache.zookeeper", "warn",
			"logging.level.org.apache.zookeeper.server.ServerCnxnFactory", "error",
			"logging.level.org.apache.curator.framework.imps", "warn");

	EmbeddedZooKeeperLogLevelsEnvironmentPostProcessor() {
		super(PROPERTY_SOURCE_NAME);
	}

	@Override
	protected Map<String, Object> levels(ConfigurableEnvironment environment) {
		boolean embedded = environment.getProperty("zklock.enabled", Boolean.class, true)
				&& environment.getProperty("zklock.embedded.enabled", Boolean.class, false);
		return embedded ? LEVELS : Map.of();
	}

}
