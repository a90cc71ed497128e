package dev.zklock.core.internal;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * Whom an {@link Acquisition} waits behind, in words for its failure: the first node of
 * the queue, and its owner when a read made anyway (the one that arms the watch on it)
 * told it. A one-attempt acquisition does not read it: that would lengthen the wait.
 */
final class HolderDetail {

	/** Why a semaphore's lease waits: no single holder to name. */
	static final String ALL_TAKEN = "every permit is taken";

	private @Nullable String holder;

	/** The data of {@link #holder}'s node, {@code pid@host} for this engine, if read. */
	private @Nullable String owner;

	/**
	 * The queue's first node is {@code holder} now; its owner is forgotten if it changed.
	 */
	void holder(String holder) {
		if (!holder.equals(this.holder)) {
			this.holder = holder;
			this.owner = null;
		}
	}

	/** The holder's node was read: its data may name its owner. */
	void holderRead(byte[] data) {
		this.owner = owner(data);
	}

	@Override
	public String toString() {
		return "holder " + this.holder + ((this.owner != null) ? ", owned by " + this.owner : "");
	}

	/**
	 * A node's data as an owner: text of this engine ({@code pid@host}) or Curator (an
	 * address); anything else is not shown.
	 */
	private static @Nullable String owner(byte[] data) {
		if (data.length == 0 || data.length > 255) {
			return null;
		}
		String text = new String(data, StandardCharsets.UTF_8);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < 0x20 || c == 0x7f || c == '\uFFFD') {
				return null;
			}
		}
		return text;
	}

}
