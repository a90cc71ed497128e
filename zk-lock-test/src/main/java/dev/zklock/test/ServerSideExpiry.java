package dev.zklock.test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * Ends a client's session on the server, as a session timeout there would: another
 * connection opens the same session with its id and password and closes it. The server
 * deletes the session's ephemeral nodes at once; the client learns of it only when it
 * next hears from the server (at once if connected, on its next connection if cut off
 * meanwhile).
 */
public final class ServerSideExpiry {

	private ServerSideExpiry() {
	}

	/**
	 * Close a client's current session on the server.
	 * @param connectString an address of the ensemble that reaches a server directly
	 * @param client the client whose session to close
	 * @param sessionTimeoutMs the session timeout to ask for on the other connection
	 * @param patience how long to wait for the other connection
	 * @return the session closed; 0 if the client had none or no connection was made
	 * @throws Exception if the client's handle cannot be had
	 */
	public static long expire(String connectString, CuratorFramework client, int sessionTimeoutMs, Duration patience)
			throws Exception {
		ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
		return expire(connectString, zooKeeper.getSessionId(), zooKeeper.getSessionPasswd(), sessionTimeoutMs, patience,
				() -> {
				});
	}

	/**
	 * Close a session on the server, given its id and password.
	 * @param connectString an address of the ensemble that reaches a server directly
	 * @param sessionId the session
	 * @param password its password
	 * @param sessionTimeoutMs the session timeout to ask for on the other connection
	 * @param patience how long to wait for the other connection
	 * @param beforeClose run once the other connection has the session, before it closes
	 * it: the last moment at which the session's nodes are certainly still there
	 * @return the session closed; 0 if there was none or no connection was made
	 * @throws Exception if the other connection cannot be opened or closed
	 */
	public static long expire(String connectString, long sessionId, byte[] password, int sessionTimeoutMs,
			Duration patience, Runnable beforeClose) throws Exception {
		if (sessionId == 0) {
			return 0;
		}
		CountDownLatch connected = new CountDownLatch(1);
		ZooKeeper killer = new ZooKeeper(connectString, sessionTimeoutMs, (event) -> {
			if (event.getState() == KeeperState.SyncConnected) {
				connected.countDown();
			}
		}, sessionId, password);
		try {
			if (!connected.await(patience.toMillis(), TimeUnit.MILLISECONDS)) {
				return 0;
			}
			beforeClose.run();
			return sessionId;
		}
		finally {
			// Closing the session it shares ends it on the server
			killer.close();
		}
	}

}
