package dev.zklock.test;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import org.apache.zookeeper.ZooDefs;
import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy between ZooKeeper clients and one server that injects network faults: it
 * can kill connections, refuse new ones (a server that is down), lose every byte (a
 * blackhole), hold bytes back and deliver them late (a stall), and, because it reads
 * ZooKeeper's framing (a 4-byte length, then a request header {@code xid, type} or a
 * reply header {@code xid, zxid, err}), lose the request or the reply of one chosen
 * operation and kill the connection, which is how "the create reached the server but its
 * reply did not reach the client" is made on demand. It also counts the requests it
 * forwards, by operation, and the watch events it delivers.
 *
 * <p>
 * Faults are one-shot or switched on and off by the test; the proxy is a test tool and
 * keeps two threads per connection.
 */
public final class ZkFaultProxy implements AutoCloseable {

	private static final int MAX_FRAME = 16 * 1024 * 1024;

	/** The xid of a watch event in ZooKeeper's framing. */
	private static final int NOTIFICATION_XID = -1;

	/**
	 * Where the engine's nodes live by default: rules match only requests on these paths.
	 */
	private static final String LOCKS = "/locks/";

	private volatile InetSocketAddress target;

	private final ServerSocket acceptor;

	private final Set<Connection> connections = ConcurrentHashMap.newKeySet();

	private final Map<Integer, LongAdder> requests = new ConcurrentHashMap<>();

	private final LongAdder notifications = new LongAdder();

	private final LongAdder delayedReplies = new LongAdder();

	private final AtomicInteger maxInFlight = new AtomicInteger();

	private final Queue<Rule> rules = new ConcurrentLinkedQueue<>();

	private final AtomicInteger connectionCount = new AtomicInteger();

	private volatile boolean refusing;

	private volatile boolean blackholed;

	private volatile long stallUntil;

	private volatile boolean closed;

	private ZkFaultProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.acceptor = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread thread = new Thread(this::acceptLoop, "zk-fault-proxy-" + this.acceptor.getLocalPort());
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * Start a proxy on a free loopback port in front of a server.
	 * @param host the server's host
	 * @param port the server's client port
	 * @return the running proxy
	 * @throws IOException if no port can be had
	 */
	public static ZkFaultProxy start(String host, int port) throws IOException {
		return new ZkFaultProxy(new InetSocketAddress(host, port));
	}

	/**
	 * Send new connections to another address: a server that came back on another port (a
	 * container started again). Open connections stay where they are.
	 * @param host the server's host
	 * @param port the server's client port
	 */
	public void retarget(String host, int port) {
		this.target = new InetSocketAddress(host, port);
	}

	/**
	 * The address clients connect to.
	 * @return {@code 127.0.0.1:<port>}
	 */
	public String connectString() {
		return "127.0.0.1:" + this.acceptor.getLocalPort();
	}

	/**
	 * How many client connections the proxy has accepted so far.
	 * @return the count
	 */
	public int connectionsAccepted() {
		return this.connectionCount.get();
	}

	/**
	 * How many requests of one operation the proxy has forwarded.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 * @return the count
	 */
	public long requests(int opCode) {
		LongAdder adder = this.requests.get(opCode);
		return (adder != null) ? adder.sum() : 0;
	}

	/**
	 * How many requests the proxy has forwarded, pings excluded.
	 * @return the count
	 */
	public long requests() {
		long total = 0;
		for (Map.Entry<Integer, LongAdder> entry : this.requests.entrySet()) {
			if (entry.getKey() != ZooDefs.OpCode.ping) {
				total += entry.getValue().sum();
			}
		}
		return total;
	}

	/**
	 * The most requests one connection has had forwarded and not yet answered at once,
	 * pings and the handshake excluded: how many a client sends without waiting.
	 * @return the count
	 */
	public int maxInFlight() {
		return this.maxInFlight.get();
	}

	/**
	 * How many replies held back by {@link #delayNextReplyTo} the proxy has passed on to
	 * their clients since it started.
	 * @return the count
	 */
	public long delayedRepliesSent() {
		return this.delayedReplies.sum();
	}

	/**
	 * How many watch events the proxy has delivered to clients.
	 * @return the count
	 */
	public long notifications() {
		return this.notifications.sum();
	}

	/**
	 * Close every open connection at once, as a network failure would.
	 */
	public void killConnections() {
		this.connections.forEach(Connection::kill);
	}

	/**
	 * While on, behave like a server that is down: open connections are closed and new
	 * ones are closed as soon as they are accepted.
	 * @param refusing whether to refuse connections
	 */
	public void refuse(boolean refusing) {
		this.refusing = refusing;
		if (refusing) {
			killConnections();
		}
	}

	/**
	 * While on, every byte in both directions is lost and connections stay open, so
	 * clients only notice by their own timeouts. Switching it off closes the connections
	 * that lost bytes, whose framing can no longer be trusted.
	 * @param blackholed whether to lose traffic
	 */
	public void blackhole(boolean blackholed) {
		this.blackholed = blackholed;
		if (!blackholed) {
			this.connections.stream().filter((connection) -> connection.damaged).forEach(Connection::kill);
		}
	}

	/**
	 * Hold all traffic back for a while and deliver it afterwards, in order.
	 * @param duration how long to hold it
	 */
	public void stall(Duration duration) {
		this.stallUntil = System.nanoTime() + duration.toNanos();
	}

	/**
	 * Forward the next request of an operation to the server, lose its reply and close
	 * that connection: the server applied the request, the client never learns the
	 * outcome. The client may reconnect at once.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 */
	public void loseNextReplyTo(int opCode) {
		loseNextReplyTo(opCode, LOCKS, Duration.ZERO);
	}

	/**
	 * Forward the next request of an operation, lose its reply, close that connection and
	 * refuse new connections for a while.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 * @param pathPrefix how the request's path starts
	 * @param outage how long to refuse connections afterwards
	 */
	public void loseNextReplyTo(int opCode, String pathPrefix, Duration outage) {
		this.rules.add(new Rule(opCode, (path) -> path.startsWith(pathPrefix), Action.LOSE_REPLY, outage));
	}

	/**
	 * Lose the next request of an operation and close that connection: the server never
	 * sees it.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 */
	public void loseNextRequest(int opCode) {
		this.rules.add(new Rule(opCode, ZkFaultProxy::onLocks, Action.LOSE_REQUEST, Duration.ZERO));
	}

	/**
	 * Hold back the reply to the next request of an operation, and every reply after it
	 * on that connection (replies keep their order), for a while.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 * @param delay how long to hold it
	 */
	public void delayNextReplyTo(int opCode, Duration delay) {
		this.rules.add(new Rule(opCode, ZkFaultProxy::onLocks, Action.DELAY_REPLY, delay));
	}

	/**
	 * Hold back the reply to the next request of an operation on exactly one path, and
	 * every reply after it on that connection, for a while.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 * @param path the request's server path
	 * @param delay how long to hold it
	 */
	public void delayNextReplyTo(int opCode, String path, Duration delay) {
		this.rules.add(new Rule(opCode, path::equals, Action.DELAY_REPLY, delay));
	}

	/**
	 * Hold back the reply to the next request of an operation on a path that starts with
	 * a prefix, and every reply after it on that connection, for a while.
	 * @param opCode a {@link ZooDefs.OpCode} constant
	 * @param pathPrefix how the request's server path starts
	 * @param delay how long to hold it
	 */
	public void delayNextReplyUnder(int opCode, String pathPrefix, Duration delay) {
		this.rules.add(new Rule(opCode, (path) -> path.startsWith(pathPrefix), Action.DELAY_REPLY, delay));
	}

	private static boolean onLocks(String path) {
		return path.startsWith(LOCKS);
	}

	/**
	 * Whether every one-shot rule has fired.
	 * @return {@code true} if none is pending
	 */
	public boolean rulesFired() {
		return this.rules.isEmpty();
	}

	/**
	 * Forget pending one-shot rules and lift every fault.
	 */
	public void heal() {
		this.rules.clear();
		this.stallUntil = 0;
		refuse(false);
		blackhole(false);
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.acceptor.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		killConnections();
	}

	private void acceptLoop() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.acceptor.accept();
			}
			catch (IOException ex) {
				return;
			}
			this.connectionCount.incrementAndGet();
			if (this.refusing) {
				closeQuietly(client);
				continue;
			}
			Socket server = new Socket();
			try {
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				server.connect(this.target, 2_000);
			}
			catch (IOException ex) {
				closeQuietly(client);
				closeQuietly(server);
				continue;
			}
			Connection connection = new Connection(client, server);
			this.connections.add(connection);
			connection.start();
		}
	}

	private @Nullable Rule takeRule(int opCode, String path) {
		for (Rule rule : this.rules) {
			if (rule.opCode == opCode && rule.path().test(path) && this.rules.remove(rule)) {
				return rule;
			}
		}
		return null;
	}

	private void awaitStall() throws InterruptedException {
		long remaining;
		while ((remaining = this.stallUntil - System.nanoTime()) > 0) {
			TimeUnit.NANOSECONDS.sleep(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(10)));
		}
	}

	/**
	 * The path that most requests carry first after their header; empty if there is none.
	 */
	private static String pathOf(ByteBuffer request) {
		if (request.remaining() < 4) {
			return "";
		}
		int length = request.getInt();
		if (length < 0 || length > request.remaining()) {
			return "";
		}
		return new String(request.array(), request.position(), length, StandardCharsets.UTF_8);
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	private void refuseFor(Duration outage) {
		if (outage.isZero()) {
			return;
		}
		refuse(true);
		Thread thread = new Thread(() -> {
			try {
				Thread.sleep(outage.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			refuse(false);
		}, "zk-fault-proxy-outage");
		thread.setDaemon(true);
		thread.start();
	}

	private enum Action {

		LOSE_REQUEST, LOSE_REPLY, DELAY_REPLY

	}

	private record Rule(int opCode, Predicate<String> path, Action action, Duration duration) {
	}

	/**
	 * One client connection and its connection to the server, pumped frame by frame.
	 */
	private final class Connection {

		private final Socket client;

		private final Socket server;

		/** Requests whose replies are to be lost or delayed, by xid. */
		private final Map<Integer, Rule> replyRules = new ConcurrentHashMap<>();

		private volatile boolean damaged;

		/**
		 * Requests forwarded and not answered yet; counted as for {@code maxInFlight}.
		 */
		private final AtomicInteger inFlight = new AtomicInteger();

		Connection(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() {
			String name = "zk-fault-proxy-" + this.client.getPort();
			startPump(name + "-request", this.client, this.server, true);
			startPump(name + "-reply", this.server, this.client, false);
		}

		void kill() {
			closeQuietly(this.client);
			closeQuietly(this.server);
			ZkFaultProxy.this.connections.remove(this);
		}

		private void startPump(String name, Socket from, Socket to, boolean requests) {
			Thread thread = new Thread(() -> {
				try {
					pump(new DataInputStream(from.getInputStream()), to.getOutputStream(), requests);
				}
				catch (IOException | InterruptedException ex) {
					// the connection ended
				}
				finally {
					if (!requests && ZkFaultProxy.this.blackholed && !ZkFaultProxy.this.closed) {
						// Lost like every other byte: the client hears of the server's
						// close
						// only when the blackhole lifts (which kills damaged connections)
						this.damaged = true;
						closeQuietly(this.server);
					}
					else {
						kill();
					}
				}
			}, name);
			thread.setDaemon(true);
			thread.start();
		}

		private void pump(DataInputStream in, OutputStream out, boolean requests)
				throws IOException, InterruptedException {
			boolean handshake = true;
			while (true) {
				boolean delayed = false;
				int length;
				try {
					length = in.readInt();
				}
				catch (EOFException ex) {
					return;
				}
				if (length < 0 || length > MAX_FRAME) {
					throw new IOException("Bad frame length " + length);
				}
				byte[] frame = new byte[length];
				in.readFully(frame);
				if (ZkFaultProxy.this.blackholed) {
					this.damaged = true;
					continue;
				}
				awaitStall();
				if (ZkFaultProxy.this.blackholed) {
					this.damaged = true;
					continue;
				}
				if (!handshake && length >= 8) {
					ByteBuffer header = ByteBuffer.wrap(frame);
					int xid = header.getInt();
					if (requests) {
						int type = header.getInt();
						Rule rule = takeRule(type, pathOf(header));
						if (rule != null && rule.action() == Action.LOSE_REQUEST) {
							kill();
							return;
						}
						if (rule != null) {
							this.replyRules.put(xid, rule);
						}
						ZkFaultProxy.this.requests.computeIfAbsent(type, (op) -> new LongAdder()).increment();
						if (xid >= 0) {
							ZkFaultProxy.this.maxInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
						}
					}
					else {
						if (xid == NOTIFICATION_XID) {
							ZkFaultProxy.this.notifications.increment();
						}
						Rule rule = this.replyRules.remove(xid);
						if (rule != null && rule.action() == Action.LOSE_REPLY) {
							refuseFor(rule.duration());
							kill();
							return;
						}
						if (rule != null) {
							Thread.sleep(rule.duration().toMillis());
							delayed = true;
						}
						if (xid >= 0) {
							this.inFlight.decrementAndGet();
						}
					}
				}
				handshake = false;
				synchronized (out) {
					ByteBuffer buffer = ByteBuffer.allocate(4 + length);
					buffer.putInt(length).put(frame);
					out.write(buffer.array());
					out.flush();
				}
				if (delayed) {
					ZkFaultProxy.this.delayedReplies.increment();
				}
			}
		}

	}

}
