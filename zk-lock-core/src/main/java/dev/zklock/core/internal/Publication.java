package dev.zklock.core.internal;

/**
 * A node just granted in ZooKeeper on the client's current session, while the recipe
 * publishes it in its entry: until it is closed, the session tracker applies no event, so
 * none falls between the grant and the publication. The recipe asks for the node, records
 * it, and closes; the engine never calls into the entry.
 */
public final class Publication implements AutoCloseable {

	private final SessionTracker sessions;

	private final TableEntry entry;

	private final HeldNode node;

	Publication(SessionTracker sessions, TableEntry entry, HeldNode node) {
		this.sessions = sessions;
		this.entry = entry;
		this.node = node;
	}

	/**
	 * The node to publish.
	 */
	public HeldNode node() {
		return this.node;
	}

	/**
	 * The node is published: apply the connection's state to it, and let the events be
	 * applied again. Only the thread that acquired the node closes it.
	 */
	@Override
	public void close() {
		this.sessions.published(this.entry, this.node);
	}

}
