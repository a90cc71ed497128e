package dev.zklock.docs.support;

/**
 * The result of an order, as the documentation's snippets use it.
 *
 * @param orderId the order
 * @param queued whether it was queued rather than taken
 */
public record OrderResult(String orderId, boolean queued) {

	public static OrderResult queued(String orderId) {
		return new OrderResult(orderId, true);
	}

}
