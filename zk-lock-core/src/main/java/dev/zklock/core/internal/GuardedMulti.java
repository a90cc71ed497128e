package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.TypeAndPath;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.core.GuardedTransaction;
import dev.zklock.core.GuardedWriteRefusedException;
import dev.zklock.core.LeaseState;

/**
 * The {@link GuardedTransaction} of every handle: the held nodes, looked up when the
 * transaction runs, are checked first in the multi, which is sent once on the handle of
 * their session.
 */
public final class GuardedMulti implements GuardedTransaction {

	private final ZkOps ops;

	private final Supplier<List<Guard>> held;

	/**
	 * @param ops where the multi is sent
	 * @param held looks up the nodes to check when the transaction runs; throws if the
	 * caller does not hold them
	 */
	public GuardedMulti(ZkOps ops, Supplier<List<Guard>> held) {
		this.ops = ops;
		this.held = held;
	}

	/**
	 * The guard of several holds at once (the keys of a multi-key lock): every node is
	 * checked, in the given order, in one multi.
	 */
	public static GuardedTransaction allOf(List<GuardedTransaction> guards) {
		List<GuardedMulti> multis = guards.stream().map(GuardedMulti.class::cast).toList();
		return new GuardedMulti(multis.get(0).ops,
				() -> multis.stream().flatMap((multi) -> multi.held.get().stream()).toList());
	}

	@Override
	public List<CuratorTransactionResult> forOperations(CuratorOp... operations) throws Exception {
		Objects.requireNonNull(operations, "operations must not be null");
		return forOperations(Arrays.asList(operations));
	}

	@Override
	public List<CuratorTransactionResult> forOperations(List<CuratorOp> operations) throws Exception {
		Objects.requireNonNull(operations, "operations must not be null");
		if (operations.stream().anyMatch(Objects::isNull)) {
			throw new IllegalArgumentException("A guarded transaction takes no null operation: " + operations);
		}
		List<Guard> nodes = this.held.get();
		long session = nodes.get(0).node().sessionId();
		List<Op> multi = new ArrayList<>(nodes.size() + operations.size());
		for (Guard guard : nodes) {
			HeldNode node = guard.node();
			if (node.state() == LeaseState.LOST) {
				throw refused(guard, "was lost while held: " + node.lostBecause(), null);
			}
			if (node.sessionId() != session) {
				// The keys of one registry share its client's session
				throw refused(guard, "belongs to another session than the other keys' nodes", null);
			}
			multi.add(this.ops.check(node.nodePath()));
		}
		operations.forEach((operation) -> multi.add(operation.get()));
		List<OpResult> results;
		try {
			results = this.ops.multiInSession(session, multi);
		}
		catch (KeeperException ex) {
			Guard failed = failedCheck(nodes, ex.getResults());
			if (failed != null) {
				throw refused(failed, "no longer exists: its session expired or another client deleted it", ex);
			}
			throw ex;
		}
		if (results == null) {
			throw refused(nodes.get(0), "belongs to session 0x" + Long.toHexString(session)
					+ ", which is no longer this client's: the session expired", null);
		}
		List<CuratorTransactionResult> curatorResults = new ArrayList<>(operations.size());
		for (int i = 0; i < operations.size(); i++) {
			curatorResults.add(curatorResult(results.get(nodes.size() + i), operations.get(i).getTypeAndPath()));
		}
		return curatorResults;
	}

	/**
	 * The held node whose check failed, if one did: the first error of a failed multi is
	 * its cause; the operations before it show {@code OK}, those after it
	 * {@code RUNTIMEINCONSISTENCY}.
	 */
	private static @Nullable Guard failedCheck(List<Guard> nodes, @Nullable List<OpResult> results) {
		if (results == null) {
			return null;
		}
		for (int i = 0; i < nodes.size() && i < results.size(); i++) {
			if (results.get(i) instanceof OpResult.ErrorResult error
					&& error.getErr() == KeeperException.Code.NONODE.intValue()) {
				return nodes.get(i);
			}
		}
		return null;
	}

	/**
	 * What Curator's own transaction returns for one result.
	 */
	private CuratorTransactionResult curatorResult(OpResult result, TypeAndPath typeAndPath) {
		String resultPath = null;
		Stat stat = null;
		int error = 0;
		if (result instanceof OpResult.CreateResult created) {
			resultPath = this.ops.withoutNamespace(created.getPath());
		}
		else if (result instanceof OpResult.SetDataResult set) {
			stat = set.getStat();
		}
		else if (result instanceof OpResult.ErrorResult failed) {
			error = failed.getErr();
		}
		return new CuratorTransactionResult(typeAndPath.getType(), typeAndPath.getForPath(), resultPath, stat, error);
	}

	private static GuardedWriteRefusedException refused(Guard guard, String because, @Nullable Throwable cause) {
		return new GuardedWriteRefusedException(guard.key(), guard.lockPath(), guard.node().nodePath(),
				guard.node().fencingToken(), because, cause);
	}

	/**
	 * A node through which this JVM holds a key.
	 *
	 * @param key the key
	 * @param lockPath the key's lock path
	 * @param node the held node
	 */
	public record Guard(String key, String lockPath, HeldNode node) {
	}

}
