package dev.zklock.core.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How the engine reads the names of the nodes under a lock path, Curator's alike: the
 * protection prefix ({@code _c_<id>-}) that lets an attempt find its own node after a
 * lost reply, and the sequence that orders the queue across every recipe's lock names.
 */
public final class NodeNames {

	/** Curator's prefix of protected node names. */
	static final String PROTECTED_PREFIX = "_c_";

	private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(NodeNames::sequenceOf);

	/**
	 * A lock node's name: {@code [_c_<uuid>-]<lock name><sequence>}, the lock name one of
	 * the exclusive and the read/write recipes'.
	 */
	private static final Pattern LOCK_NODE = Pattern
		.compile("(" + Pattern.quote(PROTECTED_PREFIX) + "[0-9a-fA-F-]{36}-)?("
				+ Pattern.quote(LockDriver.MUTEX.lockName()) + "|" + Pattern.quote(LockDriver.WRITE.lockName()) + "|"
				+ Pattern.quote(LockDriver.READ.lockName()) + ")-?[0-9]+");

	private NodeNames() {
	}

	/**
	 * Return the children of a lock path in queue order.
	 * @param children the children, in any order
	 * @return them in queue order
	 */
	public static List<String> inQueueOrder(List<String> children) {
		List<String> sorted = new ArrayList<>(children);
		sorted.sort(BY_SEQUENCE);
		return sorted;
	}

	/**
	 * Sort a list of children in queue order, in place.
	 */
	static void sortInQueueOrder(List<String> children) {
		children.sort(BY_SEQUENCE);
	}

	/**
	 * Whether a child of a lock path is named as a lock node of the exclusive or the
	 * read/write recipe, ours or Curator's: its lock name and sequence, behind the
	 * protection prefix if any. The name alone does not make a lock node: anyone may
	 * create a node of that name; a lock node is also ephemeral (its stat's
	 * {@code ephemeralOwner} is not 0), which only a read of its stat tells.
	 * @param nodeName the child's name
	 * @return whether it is named as a lock node
	 */
	public static boolean isLockNodeName(String nodeName) {
		return LOCK_NODE.matcher(nodeName).matches();
	}

	/**
	 * Whether a node name carries a protection id: {@code _c_<id>-...}.
	 */
	static boolean hasProtectionId(String nodeName, String protectionId) {
		return nodeName.startsWith(PROTECTED_PREFIX) && nodeName.startsWith(protectionId, PROTECTED_PREFIX.length());
	}

	/**
	 * The sequence part of a node name of any recipe: what follows its lock name, so that
	 * the read and write nodes of one read/write lock sort in one order, as Curator sorts
	 * them.
	 * @param nodeName the node name
	 * @return the sequence, or the whole name if it has no lock name
	 */
	public static String sequenceOf(String nodeName) {
		int end = -1;
		int length = 0;
		for (String name : new String[] { LockDriver.MUTEX.lockName(), LockDriver.WRITE.lockName(),
				LockDriver.READ.lockName(), LockDriver.CURATOR_PERMIT_NODE_PREFIX }) {
			int index = nodeName.lastIndexOf(name);
			if (index > end) {
				end = index;
				length = name.length();
			}
		}
		return (end >= 0) ? nodeName.substring(end + length) : nodeName;
	}

}
