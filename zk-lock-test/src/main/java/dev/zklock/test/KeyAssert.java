package dev.zklock.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.Participant;
import dev.zklock.core.registry.ZkLockRegistry;

/**
 * Assertions on one key, from {@link ZkLockTestKit#assertThatKey(String)}: what ZooKeeper
 * holds for it, read by the kit's own client (so whatever the faults do to the
 * application's), and what the application was told of it. Those on ZooKeeper wait up to
 * the kit's timeout for ZooKeeper to agree, since releases and expiries land a moment
 * after the call that makes them; each failure names the key and its queue.
 *
 * @author zk-lock
 */
public final class KeyAssert {

	private final ZkLockTestKit kit;

	private final String key;

	KeyAssert(ZkLockTestKit kit, String key) {
		this.kit = kit;
		this.key = key;
	}

	/**
	 * Someone holds the key: the application or any other participant.
	 * @return this
	 */
	public KeyAssert isHeld() {
		return expect("to be held", (holder) -> holder != null);
	}

	/**
	 * Nobody holds the key.
	 * @return this
	 */
	public KeyAssert isNotHeld() {
		return expect("not to be held", (holder) -> holder == null);
	}

	/**
	 * The application holds the key, on its current session.
	 * @return this
	 */
	public KeyAssert isHeldByApplication() {
		return expect(
				"to be held by the application (session 0x" + Long.toHexString(this.kit.applicationSession()) + ")",
				(holder) -> holder != null && holder.sessionId() == this.kit.applicationSession());
	}

	/**
	 * A given registry (a {@link ZkLockTestKit#newParticipant() participant}, say) holds
	 * the key, on its current session.
	 * @param registry the registry
	 * @return this
	 */
	public KeyAssert isHeldBy(ZkLockRegistry registry) {
		return expect("to be held by session 0x" + Long.toHexString(ZkLockTestKit.sessionOf(registry)),
				(holder) -> holder != null && holder.sessionId() == ZkLockTestKit.sessionOf(registry));
	}

	/**
	 * Exactly this many participants wait behind the holder.
	 * @param waiters how many
	 * @return this
	 */
	public KeyAssert hasWaiters(int waiters) {
		return expectQueue("to have " + waiters + " waiter(s) behind its holder",
				(queue) -> Math.max(0, queue.size() - 1) == waiters);
	}

	/**
	 * The application was told it lost the key ({@code LeaseState.LOST}) during the test.
	 * @return this
	 */
	public KeyAssert wasLost() {
		if (!this.kit.awaitQuietly(() -> this.kit.events().losses(this.key) > 0)) {
			throw new AssertionError("Expected the application to have lost '" + this.key
					+ "', but no lease of it became LOST while the test ran");
		}
		return this;
	}

	/**
	 * The application was never told it lost the key during the test.
	 * @return this
	 */
	public KeyAssert wasNotLost() {
		long losses = this.kit.events().losses(this.key);
		if (losses > 0) {
			throw new AssertionError("Expected the application never to have lost '" + this.key + "', but it lost it "
					+ losses + " time(s)");
		}
		return this;
	}

	/**
	 * The application acquired the key exactly this many times during the test, reentry
	 * not counted.
	 * @param times how many
	 * @return this
	 */
	public KeyAssert wasAcquired(long times) {
		long acquisitions = this.kit.events().acquisitions(this.key);
		if (acquisitions != times) {
			throw new AssertionError("Expected the application to have acquired '" + this.key + "' " + times
					+ " time(s), but it acquired it " + acquisitions + " time(s)");
		}
		return this;
	}

	private KeyAssert expect(String what, HolderCondition condition) {
		return expectQueue(what, (queue) -> condition.met(queue.isEmpty() ? null : queue.get(0)));
	}

	private KeyAssert expectQueue(String what, QueueCondition condition) {
		if (!this.kit.awaitQuietly(() -> condition.met(this.kit.queue(this.key)))) {
			List<Participant> queue;
			try {
				queue = this.kit.queue(this.key);
			}
			catch (RuntimeException ex) {
				throw new AssertionError(
						"Expected '" + this.key + "' " + what + ", but its queue could not be read: " + ex.getMessage(),
						ex);
			}
			throw new AssertionError("Expected '" + this.key + "' " + what + " within " + this.kit.timeout().toMillis()
					+ " ms, but its queue is " + describe(queue));
		}
		return this;
	}

	private static String describe(List<Participant> queue) {
		if (queue.isEmpty()) {
			return "empty";
		}
		StringBuilder text = new StringBuilder("[");
		for (int i = 0; i < queue.size(); i++) {
			Participant participant = queue.get(i);
			text.append((i == 0) ? "holder " : ", waiter ")
				.append(participant.owner())
				.append(" (session 0x")
				.append(Long.toHexString(participant.sessionId()))
				.append(')');
		}
		return text.append(']').toString();
	}

	@FunctionalInterface
	private interface HolderCondition {

		boolean met(@Nullable Participant holder);

	}

	@FunctionalInterface
	private interface QueueCondition {

		boolean met(List<Participant> queue);

	}

}
