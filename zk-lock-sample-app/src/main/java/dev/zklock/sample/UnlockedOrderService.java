package dev.zklock.sample;

import org.springframework.stereotype.Service;

/**
 * The same order logic as {@link OrderService} without the lock (nor the fence, which
 * needs a lock's token), for the demo: concurrent orders read the same stock level and
 * oversell.
 *
 * @author zk-lock
 */
@Service
public class UnlockedOrderService {

	private final StockRepository stock;

	public UnlockedOrderService(StockRepository stock) {
		this.stock = stock;
	}

	/**
	 * Take an order, unsafely.
	 * @param sku the SKU
	 * @param qty the quantity
	 * @return the result
	 */
	public OrderResult order(String sku, int qty) {
		return this.stock.takeUnfenced(sku, qty);
	}

}
