package dev.zklock.autoconfigure.logging;

import org.apache.curator.framework.api.UnhandledErrorListener;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the errors Curator's client would log itself at ERROR, now that
 * {@link ZkLockLogLevelsEnvironmentPostProcessor} turns its logger off by default: all of
 * them but a lost connection, which zk-lock reports once per state change instead of once
 * per background operation. A background operation refused for its ACL ({@code NoAuth}),
 * a listener that throws, any other failure still reaches the log, with its stack trace.
 *
 * @author zk-lock
 */
public final class CuratorUnhandledErrorLogger implements UnhandledErrorListener {

	private static final Logger logger = LoggerFactory.getLogger(CuratorUnhandledErrorLogger.class);

	@Override
	public void unhandledError(String message, Throwable ex) {
		// Curator's own CuratorConnectionLossException is a ConnectionLossException
		if (ex instanceof KeeperException.ConnectionLossException
				|| ex instanceof KeeperException.SessionExpiredException) {
			logger.debug("Curator: {}", message, ex);
			return;
		}
		logger.error("Curator: {}", message, ex);
	}

}
