package dev.zklock.sample;

import java.time.Duration;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Stock levels and accepted orders, in H2 through JDBC. Reads and writes separately, as a
 * typical read-check-write service does, and pauses in between as real work would:
 * without a lock, concurrent orders read the same level and oversell.
 *
 * @author zk-lock
 */
@Repository
public class StockRepository {

	private static final Duration WORK = Duration.ofMillis(3);

	private final JdbcClient jdbc;

	public StockRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Set a SKU's stock and forget its orders.
	 * @param sku the SKU
	 * @param quantity the stock level
	 */
	public void reset(String sku, int quantity) {
		this.jdbc.sql("merge into stock key (sku) values (:sku, :qty)")
			.param("sku", sku)
			.param("qty", quantity)
			.update();
		this.jdbc.sql("delete from orders where sku = :sku").param("sku", sku).update();
	}

	/**
	 * Return a SKU's stock level, or -1 if unknown.
	 * @param sku the SKU
	 * @return the stock level
	 */
	public int stock(String sku) {
		return this.jdbc.sql("select qty from stock where sku = :sku")
			.param("sku", sku)
			.query(Integer.class)
			.optional()
			.orElse(-1);
	}

	/**
	 * Return the units sold of a SKU.
	 * @param sku the SKU
	 * @return the units in accepted orders
	 */
	public int sold(String sku) {
		return this.jdbc.sql("select coalesce(sum(qty), 0) from orders where sku = :sku")
			.param("sku", sku)
			.query(Integer.class)
			.single();
	}

	/**
	 * Take an order if stock allows: read, check, work, write.
	 * @param sku the SKU
	 * @param quantity the quantity
	 * @return the result
	 */
	public OrderResult take(String sku, int quantity) {
		int available = stock(sku);
		if (available < quantity) {
			return new OrderResult(sku, quantity, false, Math.max(available, 0));
		}
		pause();
		this.jdbc.sql("update stock set qty = :qty where sku = :sku")
			.param("qty", available - quantity)
			.param("sku", sku)
			.update();
		this.jdbc.sql("insert into orders (sku, qty) values (:sku, :qty)")
			.param("sku", sku)
			.param("qty", quantity)
			.update();
		return new OrderResult(sku, quantity, true, available - quantity);
	}

	private static void pause() {
		try {
			Thread.sleep(WORK.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
