package dev.zklock.sample;

import dev.zklock.annotation.DistributedLock;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Takes orders under a distributed lock per SKU; the lock is taken before the transaction
 * begins and released after it commits, so the next order reads committed stock.
 *
 * @author zk-lock
 */
@Service
public class OrderService {

	private final StockRepository stock;

	public OrderService(StockRepository stock) {
		this.stock = stock;
	}

	/**
	 * Take an order.
	 * @param sku the SKU
	 * @param qty the quantity
	 * @return the result
	 */
	@DistributedLock(key = "'stock:' + #sku", name = "stock", waitAtMost = "${shop.lock-wait:2s}")
	@Transactional
	public OrderResult order(String sku, int qty) {
		return this.stock.take(sku, qty);
	}

}
