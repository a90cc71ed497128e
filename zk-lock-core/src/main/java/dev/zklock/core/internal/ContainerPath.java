package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.zookeeper.KeeperException;

import dev.zklock.core.LockAcquisitionException.Reason;

/**
 * Which containers of a lock path an {@link Acquisition}'s next create makes first, sent
 * in the same flight, ahead of the node: a key whose path was reaped costs one round trip
 * more, not one per missing level. Usually all of it exists, and a container more would
 * cost a write; a key reaped once idle lacks only its own level; a registry's first use
 * may lack every level.
 */
final class ContainerPath {

	private enum Levels {

		NONE, LOCK_PATH, EVERY_LEVEL;

		/** What to make after a create that made this found no parent. */
		Levels next() {
			return (this == NONE) ? LOCK_PATH : EVERY_LEVEL;
		}

	}

	private final ZkOps ops;

	private Levels toMake = Levels.NONE;

	ContainerPath(ZkOps ops) {
		this.ops = ops;
	}

	/** The lock path is there: the next create needs no container. */
	void found() {
		this.toMake = Levels.NONE;
	}

	/** The lock path was not there: the next create makes one more level of it. */
	void missing() {
		this.toMake = this.toMake.next();
	}

	/**
	 * Send the creates of the containers the next create needs, outermost first, without
	 * waiting: the server applies them in order, before our node. Works on server paths,
	 * so that a namespace's own node is made too, as Curator would on first use.
	 */
	List<CompletableFuture<Void>> send(String serverPath) {
		return switch (this.toMake) {
			case NONE -> List.of();
			case LOCK_PATH -> List.of(this.ops.createContainer(serverPath));
			case EVERY_LEVEL -> {
				List<CompletableFuture<Void>> sent = new ArrayList<>();
				for (int end = serverPath.indexOf('/', 1); end > 0; end = serverPath.indexOf('/', end + 1)) {
					sent.add(this.ops.createContainer(serverPath.substring(0, end)));
				}
				sent.add(this.ops.createContainer(serverPath));
				yield sent;
			}
		};
	}

	/**
	 * The create sent after {@code containers} found no parent: wait for their replies,
	 * so that a container refused for a reason of its own (an ACL, say) is the error
	 * reported, not the missing path it left.
	 * @throws AcquireFailure if even the outermost level found no parent: the client's
	 * root is a chroot of the connect string that does not exist, and no create of ours
	 * can make it
	 */
	void checkNoParent(List<CompletableFuture<Void>> containers, String lockPath, KeeperException cause,
			AttemptWaits waits) throws Exception {
		boolean outermostWithoutParent = false;
		for (int i = 0; i < containers.size(); i++) {
			boolean withoutParent = awaitContainer(containers.get(i), waits);
			outermostWithoutParent |= (i == 0) && withoutParent;
		}
		if (outermostWithoutParent && this.toMake == Levels.EVERY_LEVEL) {
			throw new AcquireFailure(Reason.ERROR,
					"ZooKeeper has no node above " + this.ops.serverPath(lockPath)
							+ ": the chroot of the connect string '" + this.ops.connectString() + "' does not exist",
					cause);
		}
	}

	/**
	 * Wait for a container's create, which may find it made already.
	 * @return whether it found no parent
	 */
	private static boolean awaitContainer(CompletableFuture<Void> container, AttemptWaits waits) throws Exception {
		try {
			waits.awaitReply(container, "the create of the lock path");
			return false;
		}
		catch (KeeperException.NodeExistsException ex) {
			return false;
		}
		catch (KeeperException.NoNodeException ex) {
			// The next create makes more of the path, if there is more to make
			return true;
		}
	}

}
