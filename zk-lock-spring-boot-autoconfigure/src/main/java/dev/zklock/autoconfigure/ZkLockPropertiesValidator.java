package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockPaths;
import dev.zklock.core.ZkLockOptions;
import dev.zklock.core.leader.LeaderGroup;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Checks {@code zklock.*} values that binding alone accepts but that cannot work, so that
 * startup fails with the property's name rather than later with a ZooKeeper error. Run
 * once, by {@link ZkLockProperties#afterPropertiesSet()}.
 *
 * @author zk-lock
 */
final class ZkLockPropertiesValidator {

	private static final Pattern HOST_PORT = Pattern.compile("[^\\s:,/]+(:\\d{1,5})?|\\[[0-9a-fA-F:.]+\\](:\\d{1,5})?");

	private ZkLockPropertiesValidator() {
	}

	/**
	 * Check the properties.
	 * @param properties the properties
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid
	 * property
	 */
	static void validate(ZkLockProperties properties) {
		positive("zklock.session-timeout", properties.getSessionTimeout());
		positive("zklock.connection-timeout", properties.getConnectionTimeout());
		notNegative("zklock.initial-connect-wait", properties.getInitialConnectWait());
		notNegative("zklock.retry.base-sleep", properties.getRetry().getBaseSleep());
		notNegative("zklock.retry.max-sleep", properties.getRetry().getMaxSleep());
		if (properties.getRetry().getMaxRetries() < 0) {
			throw new InvalidConfigurationPropertyValueException("zklock.retry.max-retries",
					properties.getRetry().getMaxRetries(), "must not be negative");
		}
		ZkLockProperties.Lock lock = properties.getLock();
		notNegative("zklock.lock.default-wait", lock.getDefaultWait());
		notNegative("zklock.lock.release-timeout", lock.getReleaseTimeout());
		notNegative("zklock.lock.linger", lock.getLinger());
		if (lock.getLinger().compareTo(ZkLockOptions.MAX_LINGER) > 0) {
			throw new InvalidConfigurationPropertyValueException("zklock.lock.linger", lock.getLinger(),
					"must be at most " + ZkLockOptions.MAX_LINGER.toHours() + "h");
		}
		if (lock.getMaxLocalHandoffs() < 0) {
			throw new InvalidConfigurationPropertyValueException("zklock.lock.max-local-handoffs",
					lock.getMaxLocalHandoffs(), "must not be negative (0 disables local hand-off)");
		}
		if (lock.getMaxKeysPerCall() < 1) {
			throw new InvalidConfigurationPropertyValueException("zklock.lock.max-keys-per-call",
					lock.getMaxKeysPerCall(), "must be at least 1");
		}
		try {
			LockPaths.validateRootPath(lock.getRootPath());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("zklock.lock.root-path",
					LockPaths.printable(lock.getRootPath()), ex.getMessage());
		}
		int embeddedPort = properties.getEmbedded().getPort();
		if (embeddedPort < 0 || embeddedPort > 65535) {
			throw new InvalidConfigurationPropertyValueException("zklock.embedded.port", embeddedPort,
					"must be between 0 (a free port) and 65535");
		}
		ZkLockProperties.Tls tls = properties.getTls();
		if (tls.isEnabled() && (tls.getTrustStore() == null || tls.getTrustStore().isBlank())) {
			throw new InvalidConfigurationPropertyValueException("zklock.tls.trust-store", tls.getTrustStore(),
					"must be set when zklock.tls.enabled is true");
		}
		validateNamespace(properties.getNamespace(), lock.getRootPath());
		validateLeadership(properties.getLeadership(), lock.getRootPath());
		validateView(properties.getView(), lock.getRootPath());
	}

	/**
	 * The view's options must make {@link ViewOptions}, and its instances path must be
	 * apart from the lock root path. Not checked when the view is off.
	 */
	private static void validateView(ZkLockProperties.View view, String lockRootPath) {
		if (!view.isEnabled()) {
			return;
		}
		pathApartFromLocks("zklock.view.instances-path", "Instances path", view.getInstancesPath(), lockRootPath);
		if (view.getMaxKeys() < 1) {
			throw new InvalidConfigurationPropertyValueException("zklock.view.max-keys", view.getMaxKeys(),
					"must be positive");
		}
		positive("zklock.view.report-interval", view.getReportInterval());
		if (view.getHeartbeat().compareTo(view.getReportInterval()) < 0) {
			throw new InvalidConfigurationPropertyValueException("zklock.view.heartbeat", view.getHeartbeat(),
					"must be at least zklock.view.report-interval (" + view.getReportInterval() + ")");
		}
	}

	/**
	 * A path of zk-lock's own beside the locks must be a valid root path, and apart from
	 * the lock root path: neither equal to it nor one inside the other, or a lock key of
	 * the same name would meet it.
	 */
	private static void pathApartFromLocks(String property, String what, String path, String lockRootPath) {
		try {
			LockPaths.validateRootPath(path);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property, LockPaths.printable(path),
					String.valueOf(ex.getMessage()).replace("Lock root path", what));
		}
		if (path.equals(lockRootPath) || path.startsWith(lockRootPath + "/") || lockRootPath.startsWith(path + "/")) {
			throw new InvalidConfigurationPropertyValueException(property, LockPaths.printable(path),
					"must be apart from zklock.lock.root-path '" + LockPaths.printable(lockRootPath)
							+ "' (neither equal to it nor one inside the other): a lock key of the same name would "
							+ "meet it");
		}
	}

	/**
	 * The leadership root path must be valid and apart from the lock root path (as
	 * {@code ZkLockRegistry.joinLeadership} requires, which would otherwise fail only at
	 * start); each group name must be a valid one. Not checked when leadership is off:
	 * nothing uses them.
	 */
	private static void validateLeadership(ZkLockProperties.Leadership leadership, String lockRootPath) {
		if (!leadership.isEnabled()) {
			return;
		}
		pathApartFromLocks("zklock.leadership.root-path", "Leadership root path", leadership.getRootPath(),
				lockRootPath);
		notNegative("zklock.leadership.hand-off-timeout", leadership.getHandOffTimeout());
		List<String> groups = leadership.getGroups();
		for (int i = 0; i < groups.size(); i++) {
			String group = groups.get(i);
			try {
				LeaderGroup.validateName(group);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException("zklock.leadership.groups[" + i + "]",
						LockPaths.printable(String.valueOf(group)), ex.getMessage());
			}
		}
	}

	/**
	 * A namespace is the first segments of every path: one or more valid segments, and
	 * not ZooKeeper's reserved tree, which it would put every lock in whatever the root
	 * path.
	 */
	private static void validateNamespace(@Nullable String namespace, String rootPath) {
		if (namespace == null || namespace.isEmpty()) {
			return;
		}
		String value = LockPaths.printable(namespace);
		if (namespace.startsWith("/") || namespace.endsWith("/")) {
			throw new InvalidConfigurationPropertyValueException("zklock.namespace", value,
					"must not start or end with '/'");
		}
		try {
			LockPaths.validatePath("Namespace", "/" + namespace);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("zklock.namespace", value,
					"is not one or more ZooKeeper path segments: "
							+ Objects.requireNonNullElse(ex.getMessage(), ex.toString()));
		}
		if (LockPaths.isReserved("/" + namespace)) {
			throw new InvalidConfigurationPropertyValueException("zklock.namespace", value,
					"with zklock.lock.root-path '" + LockPaths.printable(rootPath) + "' it would put the locks at /"
							+ value + rootPath + ", inside ZooKeeper's reserved tree " + LockPaths.RESERVED_PATH);
		}
	}

	static void validateConnectString(String property, String connectString) {
		String hosts = connectString;
		int chroot = connectString.indexOf('/');
		if (chroot >= 0) {
			hosts = connectString.substring(0, chroot);
			String path = connectString.substring(chroot);
			try {
				LockPaths.validatePath("Its chroot", path);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(property, LockPaths.printable(connectString),
						"its chroot is not a valid ZooKeeper path: " + ex.getMessage());
			}
			if (LockPaths.isReserved(path)) {
				throw new InvalidConfigurationPropertyValueException(property, LockPaths.printable(connectString),
						"its chroot '" + LockPaths.printable(path) + "' would put every lock inside ZooKeeper's "
								+ "reserved tree " + LockPaths.RESERVED_PATH);
			}
		}
		if (hosts.isBlank()) {
			throw new InvalidConfigurationPropertyValueException(property, connectString,
					"must list at least one host:port");
		}
		for (String host : hosts.split(",", -1)) {
			String trimmed = host.trim();
			if (!HOST_PORT.matcher(trimmed).matches() || !validPort(trimmed)) {
				throw new InvalidConfigurationPropertyValueException(property, connectString,
						"'" + trimmed + "' is not host:port (a comma-separated list of them, optionally followed "
								+ "by a chroot path, is expected)");
			}
		}
	}

	private static boolean validPort(String hostPort) {
		int colon = hostPort.lastIndexOf(':');
		if (colon < 0 || hostPort.endsWith("]")) {
			return true;
		}
		int port = Integer.parseInt(hostPort.substring(colon + 1));
		return port > 0 && port <= 65535;
	}

	private static void positive(String name, Duration value) {
		if (value.isNegative() || value.isZero()) {
			throw new InvalidConfigurationPropertyValueException(name, value, "must be positive");
		}
	}

	private static void notNegative(String name, Duration value) {
		if (value.isNegative()) {
			throw new InvalidConfigurationPropertyValueException(name, value, "must not be negative");
		}
	}

}
