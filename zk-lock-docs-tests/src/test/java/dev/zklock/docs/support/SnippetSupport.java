package dev.zklock.docs.support;

import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.Executor;

import dev.zklock.core.registry.ZkLockRegistry;
import dev.zklock.jdbc.JdbcFencing;
import dev.zklock.template.ZkLockTemplate;
import reactor.core.publisher.Mono;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fields and methods of the class a snippet is written in: a snippet that is the body
 * of a class or of a method extends this. Declarations only; nothing here runs.
 */
@SuppressWarnings("NullAway")
public abstract class SnippetSupport {

	protected ZkLockTemplate template;

	protected ZkLockRegistry registry;

	protected JdbcFencing fencing;

	protected JdbcClient jdbc;

	protected Executor executor;

	protected Client client;

	protected Repository repository;

	protected OrderQueue queue;

	protected String id;

	protected Document document;

	protected Report render(LocalDate day) {
		throw new UnsupportedOperationException();
	}

	protected String render(String id) {
		throw new UnsupportedOperationException();
	}

	protected void render(Chunk chunk) {
		throw new UnsupportedOperationException();
	}

	protected byte[] renderPdf(Document document) {
		throw new UnsupportedOperationException();
	}

	protected List<Chunk> chunks() {
		throw new UnsupportedOperationException();
	}

	protected void saveProgress(Chunk chunk) {
		throw new UnsupportedOperationException();
	}

	/** A reactive client of another service. */
	public interface Client {

		Mono<String> fetch(String tenant);

	}

	/** A reactive repository. */
	public interface Repository {

		Mono<String> save(String value);

	}

	/** Where orders wait when their lock is busy. */
	public interface OrderQueue {

		void add(String orderId, int qty);

	}

}
