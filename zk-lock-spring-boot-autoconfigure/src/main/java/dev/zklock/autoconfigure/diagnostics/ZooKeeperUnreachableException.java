package dev.zklock.autoconfigure.diagnostics;

import java.time.Duration;
import java.util.List;

import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when {@code zklock.fail-fast} is {@code true} and the auto-configured
 * client did not connect to ZooKeeper within {@code zklock.initial-connect-wait}. Carries
 * what was tried, so that the failure report can say what to check; never a password.
 *
 * @author zk-lock
 */
public class ZooKeeperUnreachableException extends IllegalStateException {

	private final String connectString;

	private final Duration initialConnectWait;

	private final Duration connectionTimeout;

	private final Duration sessionTimeout;

	private final boolean tlsEnabled;

	private final boolean authEnabled;

	private final @Nullable String namespace;

	private final ZooKeeper.@Nullable States clientState;

	private final List<String> unresolvedHosts;

	/**
	 * Create a new instance.
	 * @param connectString the connect string the client tried
	 * @param initialConnectWait how long startup waited for the first connection
	 * @param connectionTimeout the connection timeout of the client
	 * @param sessionTimeout the session timeout the client asked for
	 * @param tlsEnabled whether the client connected over TLS
	 * @param authEnabled whether digest authentication was configured
	 * @param namespace the Curator namespace, or {@code null} if none was configured
	 * @param clientState the state of the ZooKeeper client when startup gave up, or
	 * {@code null} if it could not be read
	 * @param unresolvedHosts the host names of the connect string that did not resolve
	 * @param cause the error the client reported, if any
	 */
	public ZooKeeperUnreachableException(String connectString, Duration initialConnectWait, Duration connectionTimeout,
			Duration sessionTimeout, boolean tlsEnabled, boolean authEnabled, @Nullable String namespace,
			ZooKeeper.@Nullable States clientState, List<String> unresolvedHosts, @Nullable Throwable cause) {
		super(message(connectString, initialConnectWait, unresolvedHosts), cause);
		this.connectString = connectString;
		this.initialConnectWait = initialConnectWait;
		this.connectionTimeout = connectionTimeout;
		this.sessionTimeout = sessionTimeout;
		this.tlsEnabled = tlsEnabled;
		this.authEnabled = authEnabled;
		this.namespace = namespace;
		this.clientState = clientState;
		this.unresolvedHosts = List.copyOf(unresolvedHosts);
	}

	private static String message(String connectString, Duration initialConnectWait, List<String> unresolvedHosts) {
		String message = "ZooKeeper at '" + connectString + "' could not be reached within "
				+ initialConnectWait.toMillis() + " ms (zklock.initial-connect-wait), and zklock.fail-fast is true";
		return (unresolvedHosts.isEmpty()) ? message
				: message + "; host names that did not resolve: " + String.join(", ", unresolvedHosts);
	}

	/**
	 * Return the connect string the client tried.
	 * @return the connect string, {@code host:port[,host:port...][/chroot]}
	 */
	public String getConnectString() {
		return this.connectString;
	}

	/**
	 * Return how long startup waited for the first connection
	 * ({@code zklock.initial-connect-wait}).
	 * @return the wait
	 */
	public Duration getInitialConnectWait() {
		return this.initialConnectWait;
	}

	/**
	 * Return the connection timeout of the client ({@code zklock.connection-timeout}).
	 * @return the connection timeout
	 */
	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	/**
	 * Return the session timeout the client asked for ({@code zklock.session-timeout}).
	 * @return the session timeout
	 */
	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	/**
	 * Return whether the client connected over TLS ({@code zklock.tls.enabled}).
	 * @return whether TLS was enabled
	 */
	public boolean isTlsEnabled() {
		return this.tlsEnabled;
	}

	/**
	 * Return whether digest authentication was configured ({@code zklock.auth.username}).
	 * The credentials themselves are not kept.
	 * @return whether digest authentication was configured
	 */
	public boolean isAuthEnabled() {
		return this.authEnabled;
	}

	/**
	 * Return the Curator namespace ({@code zklock.namespace}).
	 * @return the namespace, or {@code null} if none was configured
	 */
	public @Nullable String getNamespace() {
		return this.namespace;
	}

	/**
	 * Return the state of the ZooKeeper client when startup gave up: usually
	 * {@link ZooKeeper.States#CONNECTING CONNECTING}, still trying the listed servers in
	 * turn.
	 * @return the client state, or {@code null} if it could not be read
	 */
	public ZooKeeper.@Nullable States getClientState() {
		return this.clientState;
	}

	/**
	 * Return the host names of the connect string that did not resolve to an address when
	 * startup gave up.
	 * @return the unresolved host names, empty if all resolved
	 */
	public List<String> getUnresolvedHosts() {
		return this.unresolvedHosts;
	}

}
