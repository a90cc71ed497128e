package dev.zklock.core.internal.view;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;

import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.ConnectionStatus;
import dev.zklock.core.LeaseState;
import dev.zklock.core.LocalLockInfo;
import dev.zklock.core.LocalWaiter;
import dev.zklock.core.LockKind;

/**
 * What one instance says of itself, as written into its report node: a properties text,
 * so that any ZooKeeper browser shows it readably, and no JSON library is needed here.
 *
 * @param participantId the instance's participant id
 * @param state its connection state, {@code null} before its first event
 * @param stateSince since when
 * @param keys its keys, as {@link dev.zklock.core.registry.ZkLockRegistry#localLocks()}
 * gives them
 * @param omitted how many waiting calls were left out to keep the report small
 * @param holds how many holds the instance has, on every key, listed or not
 */
public record InstanceReport(String participantId, @Nullable ConnectionState state, Instant stateSince,
		List<LocalLockInfo> keys, int omitted, int holds) {

	/**
	 * The most waiting calls a report lists, over all keys; the others are counted. Keeps
	 * a busy instance's report, rewritten at each heartbeat, to tens of kilobytes.
	 */
	static final int MAX_WAITERS = 100;

	/** The most keys a report lists; the waiting calls of the others are counted. */
	static final int MAX_KEYS = 256;

	/**
	 * The report of a registry's present state.
	 */
	public static InstanceReport of(String participantId, ConnectionStatus status, List<LocalLockInfo> locals) {
		List<LocalLockInfo> keys = new ArrayList<>();
		int waiters = 0;
		int omitted = 0;
		List<LocalLockInfo> heldFirst = new ArrayList<>(locals);
		// The holds matter most to readers: listed before the keys only waited for
		heldFirst.sort(Comparator.comparing((LocalLockInfo info) -> !info.held()));
		for (LocalLockInfo info : heldFirst) {
			if (keys.size() == MAX_KEYS) {
				omitted += info.waiters();
				continue;
			}
			List<LocalWaiter> waiting = info.waiting();
			int room = Math.max(0, MAX_WAITERS - waiters);
			if (waiting.size() > room) {
				omitted += waiting.size() - room;
				waiting = waiting.subList(0, room);
			}
			waiters += waiting.size();
			keys.add(new LocalLockInfo(info.key(), info.path(), info.held(), info.holderThread(), info.heldSince(),
					info.waiters(), info.nodePath(), info.fencingToken(), info.leaseState(), info.kind(), info.holds(),
					info.permits(), info.lingering(), waiting));
		}
		int holds = locals.stream().mapToInt(LocalLockInfo::holds).sum();
		return new InstanceReport(participantId, status.state(), status.since(), keys, omitted, holds);
	}

	byte[] toBytes() {
		Properties p = new Properties();
		p.setProperty("participant", this.participantId);
		if (this.state != null) {
			p.setProperty("state", this.state.name());
		}
		p.setProperty("stateSince", Long.toString(this.stateSince.toEpochMilli()));
		p.setProperty("omitted", Integer.toString(this.omitted));
		p.setProperty("holds", Integer.toString(this.holds));
		p.setProperty("keys", Integer.toString(this.keys.size()));
		for (int i = 0; i < this.keys.size(); i++) {
			LocalLockInfo info = this.keys.get(i);
			String k = "key." + i + ".";
			p.setProperty(k + "key", info.key());
			p.setProperty(k + "path", info.path());
			p.setProperty(k + "kind", info.kind().name());
			p.setProperty(k + "held", Boolean.toString(info.held()));
			p.setProperty(k + "holds", Integer.toString(info.holds()));
			p.setProperty(k + "permits", Integer.toString(info.permits()));
			p.setProperty(k + "waiters", Integer.toString(info.waiters()));
			p.setProperty(k + "lingering", Boolean.toString(info.lingering()));
			putIfPresent(p, k + "thread", info.holderThread());
			putIfPresent(p, k + "since", (info.heldSince() != null) ? info.heldSince().toEpochMilli() : null);
			putIfPresent(p, k + "node", info.nodePath());
			putIfPresent(p, k + "token", info.fencingToken());
			putIfPresent(p, k + "lease", (info.leaseState() != null) ? info.leaseState().name() : null);
			p.setProperty(k + "waiting", Integer.toString(info.waiting().size()));
			for (int j = 0; j < info.waiting().size(); j++) {
				LocalWaiter waiter = info.waiting().get(j);
				String w = k + "waiting." + j + ".";
				p.setProperty(w + "thread", waiter.thread());
				p.setProperty(w + "mode", waiter.mode().name());
				p.setProperty(w + "since", Long.toString(waiter.since().toEpochMilli()));
			}
		}
		StringWriter out = new StringWriter();
		try {
			p.store(out, null);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		// Properties writes the date first: leave it out, so that equal states give equal
		// bytes and an unchanged report is not written again before its heartbeat
		String text = out.toString();
		int firstLineEnd = text.indexOf('\n');
		return text.substring(firstLineEnd + 1).getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Read a report, or return {@code null} if the data is not one (a node someone else
	 * wrote under the instances path).
	 */
	static @Nullable InstanceReport parse(byte[] data) {
		Properties p = new Properties();
		try {
			p.load(new StringReader(new String(data, StandardCharsets.UTF_8)));
			String participant = p.getProperty("participant");
			if (participant == null) {
				return null;
			}
			String state = p.getProperty("state");
			int count = Integer.parseInt(p.getProperty("keys", "0"));
			List<LocalLockInfo> keys = new ArrayList<>();
			for (int i = 0; i < Math.min(count, MAX_KEYS); i++) {
				String k = "key." + i + ".";
				int waitingCount = Integer.parseInt(p.getProperty(k + "waiting", "0"));
				List<LocalWaiter> waiting = new ArrayList<>();
				for (int j = 0; j < Math.min(waitingCount, MAX_WAITERS); j++) {
					String w = k + "waiting." + j + ".";
					waiting.add(new LocalWaiter(p.getProperty(w + "thread", "?"),
							LocalWaiter.Mode.valueOf(p.getProperty(w + "mode")), instant(p.getProperty(w + "since"))));
				}
				String since = p.getProperty(k + "since");
				String token = p.getProperty(k + "token");
				String lease = p.getProperty(k + "lease");
				keys.add(new LocalLockInfo(p.getProperty(k + "key"), p.getProperty(k + "path"),
						Boolean.parseBoolean(p.getProperty(k + "held")), p.getProperty(k + "thread"),
						(since != null) ? instant(since) : null, Integer.parseInt(p.getProperty(k + "waiters", "0")),
						p.getProperty(k + "node"), (token != null) ? Long.valueOf(token) : null,
						(lease != null) ? LeaseState.valueOf(lease) : null, LockKind.valueOf(p.getProperty(k + "kind")),
						Integer.parseInt(p.getProperty(k + "holds", "0")),
						Integer.parseInt(p.getProperty(k + "permits", "0")),
						Boolean.parseBoolean(p.getProperty(k + "lingering")), waiting));
			}
			return new InstanceReport(participant, (state != null) ? ConnectionState.valueOf(state) : null,
					instant(p.getProperty("stateSince")), keys, Integer.parseInt(p.getProperty("omitted", "0")),
					Integer.parseInt(p.getProperty("holds", "0")));
		}
		catch (IOException | RuntimeException ex) {
			// Not a report of ours, or one of another version: shown as no report
			return null;
		}
	}

	private static Instant instant(@Nullable String millis) {
		return Instant.ofEpochMilli(Long.parseLong(String.valueOf(millis)));
	}

	private static void putIfPresent(Properties p, String name, @Nullable Object value) {
		if (value != null) {
			p.setProperty(name, value.toString());
		}
	}

	int waitingCount() {
		return this.keys.stream().mapToInt((info) -> info.waiting().size()).sum() + this.omitted;
	}

	int holdCount() {
		return this.holds;
	}

}
