package dev.zklock.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import org.springframework.stereotype.Component;

/**
 * Fires concurrent one-unit orders at a SKU, once through the locked service and once
 * through its unlocked twin, and reports what each sold.
 *
 * @author zk-lock
 */
@Component
public class OversellDemo {

	private final OrderService locked;

	private final UnlockedOrderService unlocked;

	private final StockRepository stock;

	public OversellDemo(OrderService locked, UnlockedOrderService unlocked, StockRepository stock) {
		this.locked = locked;
		this.unlocked = unlocked;
		this.stock = stock;
	}

	/**
	 * Run the demo.
	 * @param initialStock the stock each run starts with
	 * @param orders how many concurrent orders to fire
	 * @return the report of both runs
	 * @throws Exception if an order fails unexpectedly
	 */
	public Report run(int initialStock, int orders) throws Exception {
		Run withLock = fire("demo-locked", initialStock, orders, this.locked::order);
		Run withoutLock = fire("demo-unlocked", initialStock, orders, this.unlocked::order);
		return new Report(initialStock, orders, withLock, withoutLock);
	}

	private Run fire(String sku, int initialStock, int orders, BiFunction<String, Integer, OrderResult> service)
			throws Exception {
		this.stock.reset(sku, initialStock);
		ExecutorService executor = Executors.newFixedThreadPool(orders);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<OrderResult>> results = new ArrayList<>();
			for (int i = 0; i < orders; i++) {
				results.add(executor.submit(() -> {
					start.await();
					return service.apply(sku, 1);
				}));
			}
			start.countDown();
			int accepted = 0;
			for (Future<OrderResult> result : results) {
				if (result.get(60, TimeUnit.SECONDS).accepted()) {
					accepted++;
				}
			}
			int sold = this.stock.sold(sku);
			int remaining = this.stock.stock(sku);
			return new Run(accepted, sold, remaining, Math.max(0, sold - initialStock));
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * One run of the demo.
	 *
	 * @param accepted orders accepted
	 * @param sold units recorded as sold
	 * @param remaining stock left in the database
	 * @param oversold units sold beyond the initial stock
	 */
	public record Run(int accepted, int sold, int remaining, int oversold) {
	}

	/**
	 * The demo's report.
	 *
	 * @param initialStock the stock each run started with
	 * @param orders the concurrent orders fired
	 * @param withLock the run through {@code @DistributedLock}
	 * @param withoutLock the run through the unlocked twin
	 */
	public record Report(int initialStock, int orders, Run withLock, Run withoutLock) {
	}

}
