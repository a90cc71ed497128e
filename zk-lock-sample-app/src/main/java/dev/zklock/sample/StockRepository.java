package dev.zklock.sample;

import java.time.Duration;
import java.util.Map;

import dev.zklock.jdbc.FencedTable;
import dev.zklock.jdbc.FencingTokenRejectedException;
import dev.zklock.jdbc.JdbcFencing;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Stock levels and accepted orders, in H2 through JDBC. Reads and writes separately, as a
 * typical read-check-write service does, and pauses in between as real work would:
 * without a lock, concurrent orders read the same level and oversell. The stock update is
 * fenced: it applies only if no later holder of the SKU's lock has written the row, so
 * that a holder whose lock was lost during a pause cannot overwrite a newer order.
 *
 * @author zk-lock
 */
@Repository
public class StockRepository {

	private static final Duration WORK = Duration.ofMillis(3);

	private static final FencedTable STOCK = FencedTable.of("stock", "sku");

	private final JdbcClient jdbc;

	private final JdbcFencing fencing;

	public StockRepository(JdbcClient jdbc, JdbcFencing fencing) {
		this.jdbc = jdbc;
		this.fencing = fencing;
	}

	/**
	 * Set a SKU's stock and forget its orders.
	 * @param sku the SKU
	 * @param quantity the stock level
	 */
	public void reset(String sku, int quantity) {
		this.jdbc.sql("merge into stock (sku, qty) key (sku) values (:sku, :qty)")
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
	 * Take an order if stock allows: read, check, work, write. The read raises the stock
	 * record's fence to the token of the lock the current thread holds, and the write is
	 * fenced with it: a read-modify-write that a holder whose lock was lost cannot
	 * overwrite, even when this holder has read and not yet written.
	 * @param sku the SKU
	 * @param quantity the quantity
	 * @return the result
	 * @throws FencingTokenRejectedException if a later holder of the SKU's lock has read
	 * or written the stock since this one read it
	 */
	public OrderResult take(String sku, int quantity) {
		return take(sku, quantity, Fencing.READ_AND_UPDATE, StockRepository::pause);
	}

	/**
	 * Take an order as {@link #take(String, int)} does, fenced as given, with the given
	 * work between the read and the write.
	 * @param sku the SKU
	 * @param quantity the quantity
	 * @param fencing what is fenced
	 * @param work what runs between the read and the write
	 * @return the result
	 * @throws FencingTokenRejectedException if the read or the write is fenced, and a
	 * later holder of the SKU's lock has read or written the stock since this one's token
	 * was stored
	 */
	public OrderResult take(String sku, int quantity, Fencing fencing, Runnable work) {
		int available = (fencing == Fencing.READ_AND_UPDATE)
				? this.fencing.read(STOCK, sku, (rs, row) -> rs.getInt("qty")).orElse(-1) : stock(sku);
		if (available < quantity) {
			return new OrderResult(sku, quantity, false, Math.max(available, 0));
		}
		work.run();
		if (fencing != Fencing.NONE) {
			this.fencing.update(STOCK, sku, Map.of("qty", available - quantity));
		}
		else {
			this.jdbc.sql("update stock set qty = :qty where sku = :sku")
				.param("qty", available - quantity)
				.param("sku", sku)
				.update();
		}
		this.jdbc.sql("insert into orders (sku, qty) values (:sku, :qty)")
			.param("sku", sku)
			.param("qty", quantity)
			.update();
		return new OrderResult(sku, quantity, true, available - quantity);
	}

	/**
	 * Take an order with a plain, unfenced read and write, for the oversell demo: without
	 * a lock it may overwrite another order's stock update.
	 * @param sku the SKU
	 * @param quantity the quantity
	 * @return the result
	 */
	public OrderResult takeUnfenced(String sku, int quantity) {
		return take(sku, quantity, Fencing.NONE, StockRepository::pause);
	}

	/**
	 * What of a read-modify-write of the stock is fenced: the demos compare them.
	 */
	public enum Fencing {

		/** A plain read and a plain update: what a lock alone gives. */
		NONE,

		/**
		 * A plain read and a fenced update: the write is fenced, not what it was computed
		 * from.
		 */
		UPDATE_ONLY,

		/** A fenced read and a fenced update: the shop's orders. */
		READ_AND_UPDATE

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
