package dev.zklock.sample;

/**
 * The outcome of one order.
 *
 * @param sku the SKU
 * @param quantity the quantity ordered
 * @param accepted whether the order was taken
 * @param remaining the stock left after it, as the order saw it
 * @author zk-lock
 */
public record OrderResult(String sku, int quantity, boolean accepted, int remaining) {
}
