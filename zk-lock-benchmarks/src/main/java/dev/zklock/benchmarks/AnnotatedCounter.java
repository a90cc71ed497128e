package dev.zklock.benchmarks;

import dev.zklock.annotation.DistributedLock;

/**
 * The bean behind the {@code @DistributedLock} measurements.
 */
public class AnnotatedCounter {

	private int value;

	/**
	 * Increment under the lock {@code bench-annotated}.
	 */
	@DistributedLock(key = "'bench-annotated'")
	public void increment() {
		this.value++;
	}

	/**
	 * A no-op under the lock for a SKU, for the per-call overhead.
	 * @param sku the SKU
	 * @return the SKU
	 */
	@DistributedLock(key = "'stock:' + #sku")
	public String touch(String sku) {
		return sku;
	}

	/**
	 * Return the count.
	 * @return the count
	 */
	public int value() {
		return this.value;
	}

}
